//! The operator's ban list and its file (`[admission] ban_file`): one ban a line,
//! `<ip> <expires> <reason…>`, where `<expires>` is a Unix time in seconds or `-` for never;
//! `#` starts a comment line. The file is loaded at start (a line that does not parse stops the
//! start-up with an error naming it, so a damaged file is never overwritten and no ban is
//! lost) and rewritten atomically (a temporary file renamed over it) after every change.
//!
//! Owns the list and the file. Must not read the clock: times come from the caller (the
//! runtime hands the server the wall clock once a second).

use super::grammar::parse_ip;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// Most bans kept (bounds the file and the list).
pub const MAX_BANS: usize = 100_000;
/// Longest reason kept, bytes.
pub const MAX_REASON_BYTES: usize = 200;
/// Largest ban file read.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// One ban.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ban {
    /// Unix seconds when it ends; None = never.
    pub expires_unix: Option<u64>,
    pub reason: String,
}

/// Why the ban file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BanFileError {
    #[error("cannot read the ban file {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {problem} (fix or remove the line; the file was left as it is)")]
    Line {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    #[error("the ban file {path} is larger than {MAX_FILE_BYTES} bytes")]
    TooLarge { path: PathBuf },
    #[error("cannot write the ban file {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The bans, and the file they persist to (None = in memory only).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BanList {
    bans: BTreeMap<IpAddr, Ban>,
    file: Option<PathBuf>,
}

/// Printable, one line, bounded.
fn clean_reason(reason: &str) -> String {
    let one_line: String = reason
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    fl_protocol::field::truncate_utf8(one_line.trim(), MAX_REASON_BYTES).to_owned()
}

impl BanList {
    /// An empty list kept in memory only.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// The list in `path` (a missing file is an empty list; the file is created on the first
    /// change).
    pub fn load(path: &Path) -> Result<Self, BanFileError> {
        let mut list = Self {
            bans: BTreeMap::new(),
            file: Some(path.to_owned()),
        };
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(list),
            Err(source) => {
                return Err(BanFileError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        if meta.len() > MAX_FILE_BYTES {
            return Err(BanFileError::TooLarge {
                path: path.to_owned(),
            });
        }
        let text = std::fs::read_to_string(path).map_err(|source| BanFileError::Read {
            path: path.to_owned(),
            source,
        })?;
        list.bans = parse(path, &text)?;
        Ok(list)
    }

    /// The file, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    pub fn len(&self) -> usize {
        self.bans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bans.is_empty()
    }

    pub fn get(&self, ip: IpAddr) -> Option<&Ban> {
        self.bans.get(&ip)
    }

    /// In address order.
    pub fn iter(&self) -> impl Iterator<Item = (&IpAddr, &Ban)> {
        self.bans.iter()
    }

    /// Adds or replaces a ban, and saves. False when the list is full (nothing changed).
    pub fn insert(&mut self, ip: IpAddr, ban: Ban) -> Result<bool, BanFileError> {
        if self.bans.len() >= MAX_BANS && !self.bans.contains_key(&ip) {
            return Ok(false);
        }
        let ban = Ban {
            reason: clean_reason(&ban.reason),
            ..ban
        };
        self.bans.insert(ip, ban);
        self.save()?;
        Ok(true)
    }

    /// Removes a ban, and saves; the removed ban.
    pub fn remove(&mut self, ip: IpAddr) -> Result<Option<Ban>, BanFileError> {
        let removed = self.bans.remove(&ip);
        if removed.is_some() {
            self.save()?;
        }
        Ok(removed)
    }

    /// Removes the bans that have ended by `now_unix`, saves if any did, and returns their
    /// addresses.
    pub fn expire(&mut self, now_unix: u64) -> Result<Vec<IpAddr>, BanFileError> {
        let gone: Vec<IpAddr> = self
            .bans
            .iter()
            .filter(|(_, b)| b.expires_unix.is_some_and(|t| t <= now_unix))
            .map(|(ip, _)| *ip)
            .collect();
        for ip in &gone {
            self.bans.remove(ip);
        }
        if !gone.is_empty() {
            self.save()?;
        }
        Ok(gone)
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# fl-server bans: <ip> <expires: unix seconds, or - for never> <reason>\n",
        );
        for (ip, b) in &self.bans {
            let expires = b
                .expires_unix
                .map_or_else(|| "-".to_owned(), |t| t.to_string());
            if b.reason.is_empty() {
                out.push_str(&format!("{ip} {expires}\n"));
            } else {
                out.push_str(&format!("{ip} {expires} {}\n", b.reason));
            }
        }
        out
    }

    /// Writes the file atomically (no file: nothing to do).
    pub fn save(&self) -> Result<(), BanFileError> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let mut tmp = path.as_os_str().to_owned();
            tmp.push(".tmp");
            let tmp = PathBuf::from(tmp);
            {
                use std::io::Write;
                let mut f = std::fs::File::create(&tmp)?;
                f.write_all(self.to_text().as_bytes())?;
                f.sync_all()?;
            }
            std::fs::rename(&tmp, path)
        };
        write().map_err(|source| BanFileError::Write {
            path: path.clone(),
            source,
        })
    }
}

/// Parses a ban file's text.
pub fn parse(path: &Path, text: &str) -> Result<BTreeMap<IpAddr, Ban>, BanFileError> {
    let mut bans = BTreeMap::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r').trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |problem: String| BanFileError::Line {
            path: path.to_owned(),
            line: n + 1,
            problem,
        };
        let mut parts = line.splitn(3, char::is_whitespace);
        let ip_text = parts.next().unwrap_or_default();
        let ip =
            parse_ip(ip_text).ok_or_else(|| bad(format!("{ip_text:?} is not an IP address")))?;
        let expires_unix = match parts.next().map(str::trim) {
            None | Some("-") => None,
            Some(t) => Some(t.parse::<u64>().map_err(|_| {
                bad(format!(
                    "{t:?} is not an expiry (Unix seconds, or - for never)"
                ))
            })?),
        };
        let reason = clean_reason(parts.next().unwrap_or_default());
        if bans.len() >= MAX_BANS {
            return Err(bad(format!("more than {MAX_BANS} bans")));
        }
        bans.insert(
            ip,
            Ban {
                expires_unix,
                reason,
            },
        );
    }
    Ok(bans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("fl-bans-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("bans.txt")
    }

    #[test]
    fn round_trips_through_the_file_and_expires() {
        let path = tmp("roundtrip");
        let mut list = BanList::load(&path).expect("a missing file is empty");
        assert!(list.is_empty());
        let a: IpAddr = "10.0.0.1".parse().expect("test value");
        let b: IpAddr = "2001:db8::1".parse().expect("test value");
        list.insert(
            a,
            Ban {
                expires_unix: None,
                reason: "spam\nand more".into(),
            },
        )
        .expect("test value");
        list.insert(
            b,
            Ban {
                expires_unix: Some(1000),
                reason: String::new(),
            },
        )
        .expect("test value");
        let again = BanList::load(&path).expect("test value");
        assert_eq!(again, list);
        assert_eq!(
            again.get(a).map(|b| b.reason.as_str()),
            Some("spam and more")
        );
        let mut list = again;
        assert_eq!(list.expire(999).expect("test value"), Vec::<IpAddr>::new());
        assert_eq!(list.expire(1000).expect("test value"), vec![b]);
        assert_eq!(BanList::load(&path).expect("test value").len(), 1);
        let _ = std::fs::remove_dir_all(path.parent().expect("test value"));
    }

    #[test]
    fn a_damaged_line_is_an_error_naming_it() {
        let p = Path::new("bans.txt");
        let e = parse(p, "# c\n10.0.0.1 -\n\nnot-an-ip - x\n").expect_err("an error");
        assert!(matches!(e, BanFileError::Line { line: 4, .. }), "{e}");
        assert!(e.to_string().contains("bans.txt:4"), "{e}");
        let e = parse(p, "10.0.0.1 soon\n").expect_err("an error");
        assert!(e.to_string().contains("not an expiry"), "{e}");
        // CRLF files and mapped addresses are accepted.
        let ok = parse(p, "::ffff:1.2.3.4 - r\r\n").expect("test value");
        assert!(ok.contains_key(&"1.2.3.4".parse::<IpAddr>().expect("test value")));
    }
}
