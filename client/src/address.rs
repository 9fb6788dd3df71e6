//! Server addresses as a player types them: `host`, `host:port`, `[v6]`, `[v6]:port` or a bare
//! IPv6 address, the port defaulting to the game's (4778). One parser for `--connect` and the
//! Join screen, so both accept and refuse the same text with the same words.
//!
//! Owns: the syntax only. Must not: resolve names or touch the network.

use fl_protocol::ids::DEFAULT_GAME_PORT;

/// Why an address was refused, in words a player can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("Type a server address, e.g. example.org or 192.0.2.10:{DEFAULT_GAME_PORT}.")]
    Empty,
    #[error("{0:?} is missing the closing ']' of an IPv6 address, e.g. [2001:db8::1]:4778.")]
    MissingBracket(String),
    #[error("{0:?} has unexpected text after ']'; write [address]:port.")]
    AfterBracket(String),
    #[error(
        "{0:?} is not a port: use a number from 1 to 65535 (the game's port is {DEFAULT_GAME_PORT})."
    )]
    BadPort(String),
    #[error(
        "{0:?} is not a host name or IP address (it has no name, or spaces or control characters)."
    )]
    BadHost(String),
}

/// Longest address accepted (a DNS name is at most 253 characters).
const MAX_ADDRESS_CHARS: usize = 300;

fn port(p: &str) -> Result<u16, AddressError> {
    match p.parse::<u16>() {
        Ok(n) if n != 0 && p.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(AddressError::BadPort(p.to_owned())),
    }
}

fn host(h: &str) -> Result<String, AddressError> {
    if h.is_empty() || h.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AddressError::BadHost(h.to_owned()));
    }
    Ok(h.to_owned())
}

/// Splits a server address into host and port (surrounding spaces ignored).
pub fn parse_target(s: &str) -> Result<(String, u16), AddressError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(AddressError::Empty);
    }
    if s.chars().count() > MAX_ADDRESS_CHARS {
        let cut: String = s.chars().take(40).collect();
        return Err(AddressError::BadHost(format!("{cut}…")));
    }
    if let Some(rest) = s.strip_prefix('[') {
        // [v6]:port or [v6]
        let (h, tail) = rest
            .split_once(']')
            .ok_or_else(|| AddressError::MissingBracket(s.to_owned()))?;
        let p = match tail.strip_prefix(':') {
            Some(p) => port(p)?,
            None if tail.is_empty() => DEFAULT_GAME_PORT,
            None => return Err(AddressError::AfterBracket(s.to_owned())),
        };
        return Ok((host(h)?, p));
    }
    match s.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') => {
            // The port first: "not a host:99999" is refused for its port, the first thing a
            // player would check.
            let p = port(p)?;
            Ok((host(h)?, p))
        }
        // No colon, or several: a host name or a bare IPv6 address.
        _ => Ok((host(s)?, DEFAULT_GAME_PORT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_targets_parse() {
        let ok = |s: &str| parse_target(s).expect(s);
        assert_eq!(ok("example.org"), ("example.org".into(), 4778));
        assert_eq!(ok("10.0.0.2:5000"), ("10.0.0.2".into(), 5000));
        assert_eq!(ok("[::1]:7"), ("::1".into(), 7));
        assert_eq!(ok("[::1]"), ("::1".into(), 4778));
        assert_eq!(ok("::1"), ("::1".into(), 4778));
        assert_eq!(ok("  host:65535 "), ("host".into(), 65535));
    }

    #[test]
    fn bad_addresses_are_refused_with_a_reason() {
        use AddressError as E;
        let err = |s: &str| parse_target(s).expect_err(s);
        assert_eq!(err("host:notaport"), E::BadPort("notaport".into()));
        assert_eq!(err("not a host:99999"), E::BadPort("99999".into()));
        assert_eq!(err("host:0"), E::BadPort("0".into()));
        assert_eq!(err("host:+80"), E::BadPort("+80".into()));
        assert_eq!(err("not a host:4778"), E::BadHost("not a host".into()));
        assert_eq!(err("not a host"), E::BadHost("not a host".into()));
        assert_eq!(err(":4778"), E::BadHost("".into()));
        assert_eq!(err("   "), E::Empty);
        assert_eq!(err("[::1"), E::MissingBracket("[::1".into()));
        assert_eq!(err("[::1]x"), E::AfterBracket("[::1]x".into()));
        assert_eq!(err("[]:4778"), E::BadHost("".into()));
        assert!(matches!(err(&"a".repeat(10_000)), E::BadHost(_)));
        // The message tells the player what to type.
        assert!(err("h:99999").to_string().contains("1 to 65535"));
    }
}
