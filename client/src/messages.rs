//! Why a session ended, in words a player can act on. Every refusal code, a protocol version
//! mismatch, a handshake timeout, a changed server identity, a lost connection and a server
//! shutdown each map to one clear sentence (plus the server's own reason where it adds
//! information, such as the names of missing packs).
//!
//! Owns only text and the retry classification; the session decides which reason applies.

use fl_net::KnownHostsEntry;
use fl_protocol::enums::ConnectRefusalCode;
use std::net::SocketAddr;
use std::time::Duration;

/// Why a session is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndReason {
    /// The server answered the join with `MsgConnectRefusal`.
    Refused {
        code: ConnectRefusalCode,
        /// The server's reason text (may be empty).
        reason: String,
    },
    /// `MsgHello` announced another protocol version.
    VersionMismatch { server: u16, client: u16 },
    /// No `MsgConnectAck` within the join timeout (the session's, or the QUIC connect timeout,
    /// which is the same value).
    HandshakeTimeout {
        /// The timeout that expired (the time the join was given).
        waited: Duration,
        stage: &'static str,
        /// Where the client tried to join (unknown for an in-memory transport).
        server: Option<SocketAddr>,
    },
    /// The server's TLS identity is not the one this client trusts.
    IdentityChanged {
        expected: String,
        got: String,
        /// The `known_hosts` line holding `expected`; `None` when it was pinned (`--pin`).
        trusted_by: Option<KnownHostsEntry>,
    },
    /// Nothing was heard from the server for the transport's idle timeout.
    TimedOut,
    /// The server announced a shutdown and closed the connection.
    ServerShutdown { notice: String },
    /// The server closed the connection for another reason.
    ClosedByServer(String),
    /// The connection could not be made or broke.
    Transport(String),
    /// This side ended the session.
    Local(String),
}

impl EndReason {
    /// The sentence to show.
    pub fn message(&self) -> String {
        match self {
            EndReason::Refused { code, reason } => refusal_message(*code, reason),
            EndReason::VersionMismatch { server, client } => format!(
                "This server speaks network protocol version {server}, this client speaks \
                 version {client}. Use a client and server from the same release."
            ),
            EndReason::HandshakeTimeout {
                waited,
                stage,
                server,
            } => handshake_timeout_message(*waited, stage, *server),
            EndReason::IdentityChanged {
                expected,
                got,
                trusted_by,
            } => {
                let what_to_do = match trusted_by {
                    Some(e) => format!(
                        "If its operator regenerated it, delete line {} (`{} …`) of {} and \
                         reconnect",
                        e.line,
                        e.key,
                        e.path.display()
                    ),
                    None => "If its operator regenerated it, pin the new fingerprint (--pin) \
                             after checking it with them"
                        .to_owned(),
                };
                format!(
                    "The server's identity changed (expected fingerprint {expected}, got \
                     {got}). {what_to_do}; otherwise someone may be impersonating the server."
                )
            }
            EndReason::TimedOut => {
                "Connection lost: nothing was heard from the server for too long.".to_owned()
            }
            EndReason::ServerShutdown { notice } => {
                if notice.is_empty() {
                    "The server shut down.".to_owned()
                } else {
                    format!("The server shut down: {notice}")
                }
            }
            EndReason::ClosedByServer(reason) => {
                if reason.is_empty() {
                    "The server closed the connection.".to_owned()
                } else {
                    format!("The server closed the connection: {reason}")
                }
            }
            EndReason::Transport(e) => format!("Could not reach the server: {e}"),
            EndReason::Local(reason) => {
                if reason.is_empty() {
                    "Disconnected.".to_owned()
                } else {
                    format!("Disconnected: {reason}")
                }
            }
        }
    }

    /// Whether trying again later may succeed without anyone changing anything.
    pub fn is_retryable(&self) -> bool {
        match self {
            EndReason::Refused { code, .. } => code.is_retryable(),
            EndReason::HandshakeTimeout { .. }
            | EndReason::TimedOut
            | EndReason::ServerShutdown { .. }
            | EndReason::Transport(_) => true,
            EndReason::VersionMismatch { .. }
            | EndReason::IdentityChanged { .. }
            | EndReason::ClosedByServer(_)
            | EndReason::Local(_) => false,
        }
    }
}

/// "The server at ADDR did not answer in time (STAGE, N s)." plus what to check for the stage.
fn handshake_timeout_message(waited: Duration, stage: &str, server: Option<SocketAddr>) -> String {
    let who = match server {
        Some(addr) => format!("The server at {addr}"),
        None => "The server".to_owned(),
    };
    let secs = waited.as_secs_f64();
    // Whole seconds for the usual 10 s; a shortened timeout (tests, tools) keeps its tenths.
    let waited = if secs >= 10.0 {
        format!("{secs:.0} s")
    } else {
        format!("{secs:.1} s")
    };
    let advice = if stage == "waiting for the connection" {
        "Check the address and port and that the server is running and reachable over UDP; \
         it may also be overloaded or not a fighters-legacy server."
    } else {
        "It may be overloaded or not a fighters-legacy server."
    };
    format!("{who} did not answer in time ({stage}, {waited}). {advice}")
}

impl std::fmt::Display for EndReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// The sentence for a refusal: ours for the code, with the server's reason where it adds
/// something (the generic code, missing packs, a role the server would not grant).
pub fn refusal_message(code: ConnectRefusalCode, reason: &str) -> String {
    let reason = reason.trim();
    let with_reason = |base: &str| {
        if reason.is_empty() {
            format!("{base}.")
        } else {
            format!("{base}: {}", reason.trim_end_matches('.')) + "."
        }
    };
    match code {
        ConnectRefusalCode::Generic => {
            if reason.is_empty() {
                "Connection refused by server.".to_owned()
            } else {
                format!("Connection refused by server: {reason}")
            }
        }
        ConnectRefusalCode::Banned => "You are banned from this server.".to_owned(),
        ConnectRefusalCode::AccessDenied => {
            "Access denied: this server admits only listed addresses.".to_owned()
        }
        ConnectRefusalCode::RateLimited => match retry_after_secs(reason) {
            // The server's token bucket knows when the next attempt fits; say exactly that.
            Some(secs) => {
                format!("Too many connection attempts from your address. Try again in {secs} s.")
            }
            None => "Too many connection attempts from your address. Wait a few seconds and try \
                     again."
                .to_owned(),
        },
        ConnectRefusalCode::TooManyConnections => {
            "Too many connections from your address. Close another client and try again.".to_owned()
        }
        ConnectRefusalCode::AdminLockout => {
            "Access denied: too many failed admin logins from your address. Try again later."
                .to_owned()
        }
        ConnectRefusalCode::RoleDenied => with_reason("The server would not grant that role"),
        ConnectRefusalCode::MissingRequiredPack => {
            // Where a pack goes on this machine, so the player can act on the refusal.
            let fix = crate::content::where_packs_go();
            if reason.is_empty() {
                format!("The server requires content packs you do not have: {fix}, then reconnect.")
            } else {
                format!("{reason}: {fix}, then reconnect.")
            }
        }
        ConnectRefusalCode::EntitlementRequired => {
            "This server requires an entitlement this client does not hold.".to_owned()
        }
        ConnectRefusalCode::MatchFull => {
            "The match is full: every team is at capacity. Try again later.".to_owned()
        }
        ConnectRefusalCode::BadPassword => {
            "Wrong or missing server password. Check the password and reconnect.".to_owned()
        }
        ConnectRefusalCode::ServerFull => "The server is full. Try again later.".to_owned(),
        ConnectRefusalCode::NoAirframe => {
            "The server has no aircraft you can fly (a server configuration problem; tell its \
             operator)."
                .to_owned()
        }
    }
}

/// The wait a `RateLimited` reason names ("… try again in N s."), if it names one.
fn retry_after_secs(reason: &str) -> Option<u32> {
    let (_, rest) = reason.split_once("try again in ")?;
    let (n, unit) = rest.split_once(' ')?;
    unit.starts_with('s').then(|| n.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_limit_refusal_names_the_servers_wait() {
        assert_eq!(
            refusal_message(
                ConnectRefusalCode::RateLimited,
                "Too many connection attempts; try again in 30 s."
            ),
            "Too many connection attempts from your address. Try again in 30 s."
        );
        // An older server's text names no wait.
        for reason in [
            "",
            "Connection rate limit exceeded. Try again later.",
            "try again in x s.",
        ] {
            assert_eq!(
                refusal_message(ConnectRefusalCode::RateLimited, reason),
                "Too many connection attempts from your address. Wait a few seconds and try \
                 again.",
                "{reason:?}"
            );
        }
    }

    #[test]
    fn every_refusal_code_has_its_own_sentence() {
        let mut seen = std::collections::BTreeSet::new();
        for &code in ConnectRefusalCode::ALL {
            let m = refusal_message(code, "");
            assert!(!m.is_empty() && m.ends_with('.'), "{code:?}: {m}");
            seen.insert(m);
        }
        assert_eq!(seen.len(), ConnectRefusalCode::ALL.len(), "distinct texts");
        let m = refusal_message(
            ConnectRefusalCode::MissingRequiredPack,
            "Missing required pack(s): fl-base",
        );
        assert!(
            m.starts_with("Missing required pack(s): fl-base: ")
                && m.contains("--pack DIR")
                && m.ends_with("then reconnect."),
            "{m}"
        );
        assert!(
            refusal_message(ConnectRefusalCode::Generic, "No connect request received.")
                .contains("No connect request")
        );
    }

    #[test]
    fn a_join_timeout_names_the_stage_the_address_and_the_timeout() {
        let addr: SocketAddr = "127.0.0.1:4778".parse().expect("addr");
        let m = EndReason::HandshakeTimeout {
            waited: Duration::from_secs(10),
            stage: "waiting for the connection",
            server: Some(addr),
        }
        .message();
        assert!(
            m.starts_with(
                "The server at 127.0.0.1:4778 did not answer in time (waiting for the \
                 connection, 10 s)."
            ),
            "{m}"
        );
        assert!(m.contains("address and port"), "{m}");
        let m = EndReason::HandshakeTimeout {
            waited: Duration::from_millis(400),
            stage: "waiting to be admitted",
            server: None,
        }
        .message();
        assert!(m.contains("(waiting to be admitted, 0.4 s)"), "{m}");
    }

    #[test]
    fn a_changed_identity_names_the_known_hosts_line_or_the_pin() {
        let m = EndReason::IdentityChanged {
            expected: "aa".into(),
            got: "bb".into(),
            trusted_by: Some(KnownHostsEntry {
                path: "/home/p/.config/fighters-legacy/known_hosts".into(),
                line: 2,
                key: "127.0.0.1:4778".into(),
            }),
        }
        .message();
        assert!(
            m.contains(
                "delete line 2 (`127.0.0.1:4778 …`) of /home/p/.config/fighters-legacy/known_hosts"
            ),
            "{m}"
        );
        let m = EndReason::IdentityChanged {
            expected: "aa".into(),
            got: "bb".into(),
            trusted_by: None,
        }
        .message();
        assert!(m.contains("--pin"), "{m}");
    }

    #[test]
    fn retry_classification() {
        let r = |code| EndReason::Refused {
            code,
            reason: String::new(),
        };
        assert!(r(ConnectRefusalCode::ServerFull).is_retryable());
        assert!(!r(ConnectRefusalCode::Banned).is_retryable());
        assert!(
            !EndReason::VersionMismatch {
                server: 2,
                client: 1
            }
            .is_retryable()
        );
        assert!(EndReason::TimedOut.is_retryable());
        assert!(
            EndReason::VersionMismatch {
                server: 2,
                client: 1
            }
            .to_string()
            .contains("version 2")
        );
    }
}
