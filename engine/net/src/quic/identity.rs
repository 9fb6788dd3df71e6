//! Who is who over QUIC: the server's persistent self-signed identity, fingerprints, the
//! client's `known_hosts` file, and the certificate verifier that enforces trust on first use
//! or a pinned fingerprint.
//!
//! Owns: the identity file format (`quic-identity.pem`: certificate + PKCS#8 key, mode 0600),
//! the fingerprint format (SHA-256 of the certificate DER, lowercase hex pairs joined by `:`),
//! and the `known_hosts` format (`host:port fingerprint` per line, `#` comments). Must not:
//! ever regenerate an identity that exists but cannot be read (clients would see a changed
//! identity), accept a server whose fingerprint differs from the trusted one, or write a
//! file non-atomically.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use super::QuicError;

/// The identity file's name inside the server's data directory.
pub const IDENTITY_FILE: &str = "quic-identity.pem";

/// SHA-256 of a certificate's DER bytes.
///
/// Shown as 32 lowercase hex pairs joined by `:` (`3f:a1:…`). Parsing accepts either case,
/// with or without the colons, and an optional `SHA256:` prefix.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The fingerprint of a DER-encoded certificate.
    pub fn of_certificate(der: &[u8]) -> Self {
        let digest = ring::digest::digest(&ring::digest::SHA256, der);
        let mut out = [0u8; 32];
        out.copy_from_slice(digest.as_ref());
        Fingerprint(out)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// A string that is not a fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a SHA-256 fingerprint (expected 64 hex digits, optionally colon-separated): {0:?}")]
pub struct BadFingerprint(pub String);

impl FromStr for Fingerprint {
    type Err = BadFingerprint;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadFingerprint(s.chars().take(120).collect());
        let t = s.trim();
        let t = match t.get(..7) {
            Some(p) if p.eq_ignore_ascii_case("sha256:") => &t[7..],
            _ => t,
        };
        let hex: Vec<u8> = t.bytes().filter(|&c| c != b':').collect();
        if hex.len() != 64 {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, pair) in hex.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16).ok_or_else(bad)?;
            let lo = (pair[1] as char).to_digit(16).ok_or_else(bad)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Ok(Fingerprint(out))
    }
}

/// The server's certificate and private key.
pub struct ServerIdentity {
    pub(crate) cert: CertificateDer<'static>,
    pub(crate) key: PrivateKeyDer<'static>,
    fingerprint: Fingerprint,
    path: PathBuf,
}

impl fmt::Debug for ServerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerIdentity")
            .field("fingerprint", &self.fingerprint)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl ServerIdentity {
    /// Loads `data_dir/quic-identity.pem`, or creates it (and `data_dir`) when it does not
    /// exist. An existing file that cannot be read or parsed is an error naming it: it is
    /// never replaced silently.
    pub fn load_or_create(data_dir: &Path) -> Result<Self, QuicError> {
        let path = data_dir.join(IDENTITY_FILE);
        match fs::read(&path) {
            Ok(bytes) => Self::parse(&bytes, path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Self::create(data_dir, path),
            Err(source) => Err(QuicError::IdentityRead { path, source }),
        }
    }

    /// The identity's fingerprint (what clients pin and write to `known_hosts`).
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The file it lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn parse(bytes: &[u8], path: PathBuf) -> Result<Self, QuicError> {
        let corrupt = |why: String| QuicError::IdentityCorrupt {
            path: path.clone(),
            why,
        };
        let mut certs = Vec::new();
        for c in CertificateDer::pem_slice_iter(bytes) {
            certs.push(c.map_err(|e| corrupt(format!("bad certificate PEM: {e}")))?);
        }
        let [cert] = <[CertificateDer<'static>; 1]>::try_from(certs)
            .map_err(|v| corrupt(format!("expected one certificate, found {}", v.len())))?;
        let key = PrivateKeyDer::from_pem_slice(bytes)
            .map_err(|e| corrupt(format!("no usable private key: {e}")))?;
        // The key must be usable and match the certificate.
        rustls::sign::CertifiedKey::from_der(vec![cert.clone()], key.clone_key(), &provider())
            .map_err(|e| corrupt(format!("certificate and key do not form an identity: {e}")))?;
        let fingerprint = Fingerprint::of_certificate(&cert);
        Ok(ServerIdentity {
            cert,
            key,
            fingerprint,
            path,
        })
    }

    fn create(data_dir: &Path, path: PathBuf) -> Result<Self, QuicError> {
        let write_err = |source: io::Error| QuicError::IdentityWrite {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(data_dir).map_err(write_err)?;
        let generated = rcgen::generate_simple_self_signed(vec![
            "fighters-legacy-server".to_owned(),
            "localhost".to_owned(),
        ])
        .map_err(|e| QuicError::IdentityGenerate(e.to_string()))?;
        let pem = format!(
            "{}{}",
            generated.cert.pem(),
            generated.signing_key.serialize_pem()
        );
        // Write a private temporary file, then link it into place: if another process
        // created the identity meanwhile, we load theirs instead of replacing it.
        let tmp = temp_path(data_dir, IDENTITY_FILE);
        write_private(&tmp, pem.as_bytes()).map_err(write_err)?;
        let linked = fs::hard_link(&tmp, &path);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                tracing::info!(path = %path.display(), "created a new server identity");
                sync_dir(data_dir);
                Self::parse(pem.as_bytes(), path)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let bytes = fs::read(&path).map_err(|source| QuicError::IdentityRead {
                    path: path.clone(),
                    source,
                })?;
                Self::parse(&bytes, path)
            }
            Err(e) => Err(write_err(e)),
        }
    }
}

/// A temporary file name next to `name` in `dir`, unique within this machine's processes
/// and this process's threads.
fn temp_path(dir: &Path, name: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

/// Creates `path` (which must not exist) readable by the owner only, writes and syncs it.
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn sync_dir(dir: &Path) {
    // Best effort: makes the rename/link durable on filesystems that need it.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The crypto provider every config of this crate is built with (ring, explicitly: never the
/// process default, so a second provider elsewhere cannot make config building panic).
pub(crate) fn provider() -> CryptoProvider {
    rustls::crypto::ring::default_provider()
}

/// How a client decides to trust a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustPolicy {
    /// Trust on first use: the first fingerprint seen for `host:port` is written to this file;
    /// afterwards only that fingerprint is accepted.
    KnownHosts(PathBuf),
    /// Accept only this fingerprint.
    Pinned(Fingerprint),
}

/// The `known_hosts` key of a server: `host:port`, IPv6 literals in brackets.
pub fn known_hosts_key(server_name: &str, port: u16) -> String {
    if server_name.contains(':') && !server_name.starts_with('[') {
        format!("[{server_name}]:{port}")
    } else {
        format!("{server_name}:{port}")
    }
}

/// A parsed `known_hosts` file (order kept, so rewriting it keeps the user's order).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KnownHosts {
    entries: Vec<HostEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HostEntry {
    key: String,
    fp: Fingerprint,
    /// 1-based line in the file it was read from (0 for an entry not read from a file), so
    /// a changed identity can name the line to delete.
    line: usize,
}

/// Largest `known_hosts` file read (it is a list of servers, not a database).
const MAX_KNOWN_HOSTS_BYTES: u64 = 1 << 20;

impl KnownHosts {
    /// Reads `path`; a missing file is an empty list, anything malformed is an error naming
    /// the file and line (a damaged file must not silently drop a pin).
    pub fn load(path: &Path) -> Result<Self, QuicError> {
        let read_err = |source: io::Error| QuicError::KnownHostsRead {
            path: path.to_path_buf(),
            source,
        };
        let meta = match fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(read_err(e)),
        };
        if meta.len() > MAX_KNOWN_HOSTS_BYTES {
            return Err(QuicError::KnownHostsCorrupt {
                path: path.to_path_buf(),
                line: 0,
                why: format!("larger than {MAX_KNOWN_HOSTS_BYTES} bytes"),
            });
        }
        let bytes = fs::read(path).map_err(read_err)?;
        let text = String::from_utf8(bytes).map_err(|_| QuicError::KnownHostsCorrupt {
            path: path.to_path_buf(),
            line: 0,
            why: "not UTF-8".to_owned(),
        })?;
        Self::parse(&text).map_err(|(line, why)| QuicError::KnownHostsCorrupt {
            path: path.to_path_buf(),
            line,
            why,
        })
    }

    fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(host), Some(fp), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err((i + 1, "expected `host:port fingerprint`".to_owned()));
            };
            let fp = fp
                .parse::<Fingerprint>()
                .map_err(|e| (i + 1, e.to_string()))?;
            entries.push(HostEntry {
                key: host.to_owned(),
                fp,
                line: i + 1,
            });
        }
        Ok(KnownHosts { entries })
    }

    /// The fingerprint trusted for `key` (the first entry wins).
    pub fn get(&self, key: &str) -> Option<Fingerprint> {
        self.entry(key).map(|(fp, _)| fp)
    }

    /// The fingerprint trusted for `key` and the 1-based line it was read from.
    pub fn entry(&self, key: &str) -> Option<(Fingerprint, usize)> {
        self.entries
            .iter()
            .find(|e| e.key == key)
            .map(|e| (e.fp, e.line))
    }

    fn to_text(&self) -> String {
        let mut s = String::from("# fighters-legacy known servers: host:port sha256-fingerprint\n");
        for e in &self.entries {
            s.push_str(&format!("{} {}\n", e.key, e.fp));
        }
        s
    }

    /// Records `key → fp` in `path` (re-read just before writing so concurrent clients do not
    /// lose each other's entries), atomically: a temporary file renamed over the old one.
    /// An existing entry for `key` is kept (trust on *first* use).
    pub fn record(path: &Path, key: &str, fp: Fingerprint) -> Result<(), QuicError> {
        // One writer at a time within this process (between processes the last rename wins).
        static WRITING: Mutex<()> = Mutex::new(());
        let _one_at_a_time = WRITING.lock().unwrap_or_else(|p| p.into_inner());
        let mut hosts = Self::load(path)?;
        if hosts.get(key).is_some() {
            return Ok(());
        }
        hosts.entries.push(HostEntry {
            key: key.to_owned(),
            fp,
            line: 0,
        });
        let write_err = |source: io::Error| QuicError::KnownHostsWrite {
            path: path.to_path_buf(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&dir).map_err(write_err)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "known_hosts".to_owned());
        let tmp = temp_path(&dir, &name);
        write_private(&tmp, hosts.to_text().as_bytes()).map_err(write_err)?;
        if let Err(e) = fs::rename(&tmp, path) {
            let _ = fs::remove_file(&tmp);
            return Err(write_err(e));
        }
        sync_dir(&dir);
        Ok(())
    }
}

/// Checks the server's certificate by fingerprint only (self-signed identities: no CA, no
/// names, no dates), and remembers what it saw so a refusal can show both fingerprints.
/// The TLS 1.3 handshake signature is still verified, so the server must hold the key.
#[derive(Debug)]
pub(crate) struct FingerprintVerifier {
    expected: Option<Fingerprint>,
    seen: Mutex<Option<Fingerprint>>,
    provider: Arc<CryptoProvider>,
}

impl FingerprintVerifier {
    pub(crate) fn new(expected: Option<Fingerprint>, provider: Arc<CryptoProvider>) -> Self {
        FingerprintVerifier {
            expected,
            seen: Mutex::new(None),
            provider,
        }
    }

    /// The fingerprint the server presented, if the handshake got that far.
    pub(crate) fn seen(&self) -> Option<Fingerprint> {
        *self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `(expected, got)` when the server presented a different identity.
    pub(crate) fn mismatch(&self) -> Option<(Fingerprint, Fingerprint)> {
        match (self.expected, self.seen()) {
            (Some(e), Some(g)) if e != g => Some((e, g)),
            _ => None,
        }
    }
}

impl ServerCertVerifier for FingerprintVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let got = Fingerprint::of_certificate(end_entity);
        *self.seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(got);
        match self.expected {
            Some(expected) if expected != got => {
                tracing::warn!(%expected, %got, "server identity changed: refusing");
                Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::ApplicationVerificationFailure,
                ))
            }
            _ => Ok(ServerCertVerified::assertion()),
        }
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        // Only TLS 1.3 is ever offered.
        Err(rustls::Error::PeerIncompatible(
            rustls::PeerIncompatible::Tls13RequiredForQuic,
        ))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_text_round_trips_in_every_accepted_spelling() {
        let fp = Fingerprint::of_certificate(b"not really a certificate");
        let shown = fp.to_string();
        assert_eq!(shown.len(), 95);
        assert_eq!(shown, shown.to_lowercase());
        assert_eq!(shown.parse::<Fingerprint>(), Ok(fp));
        assert_eq!(shown.to_uppercase().parse::<Fingerprint>(), Ok(fp));
        assert_eq!(shown.replace(':', "").parse::<Fingerprint>(), Ok(fp));
        assert_eq!(format!("SHA256:{shown}").parse::<Fingerprint>(), Ok(fp));
        for bad in [
            "",
            "zz",
            &shown[..94],
            &format!("{shown}:00"),
            &shown.replace('a', "g"),
        ] {
            assert!(bad.parse::<Fingerprint>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn concurrent_first_uses_keep_every_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested").join("known_hosts");
        let threads: Vec<_> = (0..8u8)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    KnownHosts::record(&path, &format!("10.0.0.{i}:4778"), Fingerprint([i; 32]))
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread").expect("recorded");
        }
        // First use wins: a second record for a key changes nothing.
        KnownHosts::record(&path, "10.0.0.3:4778", Fingerprint([99; 32])).expect("no-op");
        let hosts = KnownHosts::load(&path).expect("valid");
        for i in 0..8u8 {
            assert_eq!(
                hosts.get(&format!("10.0.0.{i}:4778")),
                Some(Fingerprint([i; 32]))
            );
        }
        let leftovers = fs::read_dir(path.parent().expect("dir"))
            .expect("dir")
            .count();
        assert_eq!(leftovers, 1, "no temporary files left behind");
    }

    #[test]
    fn known_hosts_parse_and_errors_name_the_line() {
        let fp = Fingerprint([7; 32]);
        let text = format!("# comment\n\n127.0.0.1:4778 {fp}\n[::1]:4778 {fp}\n");
        let hosts = KnownHosts::parse(&text).expect("valid");
        assert_eq!(hosts.get("127.0.0.1:4778"), Some(fp));
        assert_eq!(hosts.get(&known_hosts_key("::1", 4778)), Some(fp));
        assert_eq!(hosts.get("127.0.0.1:4779"), None);
        // The line a changed identity tells the player to delete.
        assert_eq!(hosts.entry("[::1]:4778"), Some((fp, 4)));
        assert_eq!(KnownHosts::parse("a:1 00\n").map_err(|(l, _)| l), Err(1));
        assert_eq!(
            KnownHosts::parse(&format!("a:1 {fp}\nb:2\n")).map_err(|(l, _)| l),
            Err(2)
        );
        assert_eq!(
            KnownHosts::parse(&format!("a:1 {fp} extra\n")).map_err(|(l, _)| l),
            Err(1)
        );
    }
}
