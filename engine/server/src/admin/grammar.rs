//! The admin command grammar: the command table (names, aliases, usage, one-line help) and the
//! parser from one command line to a typed [`AdminCmd`]. Names and argument order follow the
//! C++ original's operator docs (`kick <peerId|IP>`, `tp <idx> <x> <y> <z>`,
//! `shutdown --in <dur> --reason <text>`, …).
//!
//! Owns parsing only: it never touches the server, and a refusal is a typed [`ParseError`]
//! carrying the command's usage line.

use std::net::IpAddr;

/// One registered command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    /// Arguments, as the usage line shows them.
    pub args: &'static str,
    pub summary: &'static str,
}

impl CommandSpec {
    /// `name args`.
    pub fn usage(&self) -> String {
        if self.args.is_empty() {
            self.name.to_owned()
        } else {
            format!("{} {}", self.name, self.args)
        }
    }
}

/// Every command, in `help` order.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "help",
        aliases: &["?"],
        args: "[command]",
        summary: "list the commands, or one command's usage",
    },
    CommandSpec {
        name: "status",
        aliases: &[],
        args: "",
        summary: "tick, peers, entities, load, paused, shutdown countdown",
    },
    CommandSpec {
        name: "peers",
        aliases: &[],
        args: "",
        summary: "connected peers: id, callsign, address, role, faction, entity, ping, loss, kbps",
    },
    CommandSpec {
        name: "tickstats",
        aliases: &[],
        args: "",
        summary: "tick phase times (ms p50/p95/p99/max over the last minute) and the load factor",
    },
    CommandSpec {
        name: "kick",
        aliases: &[],
        args: "<peerId|IP> [reason]",
        summary: "disconnect a peer, or every peer from an address",
    },
    CommandSpec {
        name: "ban",
        aliases: &[],
        args: "<peerId|IP> [duration] [reason]",
        summary: "refuse an address (for a duration like 30m, 2h, 7d; none = for good) and kick it",
    },
    CommandSpec {
        name: "unban",
        aliases: &[],
        args: "<IP>",
        summary: "lift a ban",
    },
    CommandSpec {
        name: "bans",
        aliases: &[],
        args: "",
        summary: "list the bans",
    },
    CommandSpec {
        name: "say",
        aliases: &[],
        args: "<text>",
        summary: "a system chat line to everyone",
    },
    CommandSpec {
        name: "mute",
        aliases: &[],
        args: "<peerId>",
        summary: "stop a peer's chat reaching anyone",
    },
    CommandSpec {
        name: "unmute",
        aliases: &[],
        args: "<peerId>",
        summary: "let a muted peer chat again",
    },
    CommandSpec {
        name: "spawn",
        aliases: &[],
        args: "<type> <x> <y> <z> | <type> <lat>,<lon>[,<alt>] [--faction <n>] [--heading <deg>] [--speed <m/s>]",
        summary: "spawn an entity type (aircraft fly off trimmed level; others stand)",
    },
    CommandSpec {
        name: "kill",
        aliases: &[],
        args: "<entityIdx|@peerId>",
        summary: "remove an entity (a pilot's aircraft: they respawn after the delay)",
    },
    CommandSpec {
        name: "tp",
        aliases: &["teleport"],
        args: "<entityIdx|@peerId> <x> <y> <z> | <entityIdx|@peerId> <lat>,<lon>[,<alt>]",
        summary: "move an entity (an aircraft keeps its speed and heading, levelled)",
    },
    CommandSpec {
        name: "pause",
        aliases: &[],
        args: "",
        summary: "stop the world (the network keeps running)",
    },
    CommandSpec {
        name: "resume",
        aliases: &[],
        args: "",
        summary: "run the world again",
    },
    CommandSpec {
        name: "mission",
        aliases: &["map"],
        args: "[<pack:stem>|restart|next]",
        summary: "show the mission, or switch to one of the configured missions",
    },
    CommandSpec {
        name: "shutdown",
        aliases: &[],
        args: "[--in <dur>] [--interval <dur>] [--now] [--reason <text>] | cancel | --cancel",
        summary: "stop the server after a countdown of notices to the players",
    },
];

/// The spec of `name` (a name or an alias).
pub fn find(name: &str) -> Option<&'static CommandSpec> {
    let name = name.to_ascii_lowercase();
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name.as_str()))
}

/// Whom `kick` and `ban` address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Peer(u32),
    Ip(IpAddr),
}

/// Which entity `kill` and `tp` address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityRef {
    /// A pool index (as `peers` shows it).
    Index(u32),
    /// The aircraft a peer flies.
    PeerAircraft(u32),
}

/// A place in the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Position {
    /// World metres (the C++ grammar: origin at the north pole's surface, y up there).
    World([f64; 3]),
    /// Degrees north and east, metres above sea level.
    Geo { lat: f64, lon: f64, alt: f64 },
}

/// `shutdown`'s forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShutdownCmd {
    /// Stop after `seconds` (0 = now), notices every `interval_s` (None = the configured one).
    Schedule {
        seconds: u32,
        interval_s: Option<u32>,
        reason: String,
    },
    Cancel,
}

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum AdminCmd {
    Help(Option<String>),
    Status,
    Peers,
    TickStats,
    Kick {
        target: Target,
        reason: String,
    },
    Ban {
        target: Target,
        /// Seconds; None = permanent.
        duration_s: Option<u64>,
        reason: String,
    },
    Unban(IpAddr),
    Bans,
    Say(String),
    Mute(u32),
    Unmute(u32),
    Spawn {
        type_id: String,
        at: Position,
        faction: Option<u16>,
        heading_deg: f64,
        speed_mps: Option<f64>,
    },
    Kill(EntityRef),
    Teleport {
        entity: EntityRef,
        at: Position,
    },
    Pause,
    Resume,
    /// None = show the mission.
    Mission(Option<String>),
    Shutdown(ShutdownCmd),
}

/// Why a line is not a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("empty command; try help")]
    Empty,
    #[error("unknown command: {0}; try help")]
    Unknown(String),
    #[error("{command}: {problem}\nusage: {usage}")]
    Usage {
        command: &'static str,
        problem: String,
        usage: String,
    },
}

/// Longest duration accepted (a year), so arithmetic on it never overflows.
pub const MAX_DURATION_S: u64 = 366 * 24 * 3600;

/// A duration: `90`, `90s`, `15m`, `2h`, `7d`, or sums like `1h30m` (bare numbers are seconds).
pub fn parse_duration(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut digits = String::new();
    let mut any_unit = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if digits.len() >= 9 {
                return None;
            }
            digits.push(c);
            continue;
        }
        let n: u64 = digits.parse().ok()?;
        digits.clear();
        let unit = match c.to_ascii_lowercase() {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 7 * 86_400,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        any_unit = true;
    }
    if !digits.is_empty() {
        if any_unit {
            // "1h30" is ambiguous.
            return None;
        }
        total = digits.parse().ok()?;
    }
    (total <= MAX_DURATION_S).then_some(total)
}

/// A duration as an operator reads it: `2h 30m`, `45s`.
pub fn format_duration(mut s: u64) -> String {
    if s == 0 {
        return "0s".into();
    }
    let mut parts = Vec::new();
    for (unit, name) in [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")] {
        if s >= unit {
            parts.push(format!("{}{name}", s / unit));
            s %= unit;
        }
    }
    parts.join(" ")
}

struct Args<'a> {
    spec: &'static CommandSpec,
    words: Vec<&'a str>,
    /// The text after each word (for trailing free text).
    rests: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn usage(&self, problem: impl Into<String>) -> ParseError {
        ParseError::Usage {
            command: self.spec.name,
            problem: problem.into(),
            usage: self.spec.usage(),
        }
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        self.words.get(i).copied()
    }

    fn need(&self, i: usize, what: &str) -> Result<&'a str, ParseError> {
        self.get(i)
            .ok_or_else(|| self.usage(format!("missing {what}")))
    }

    /// The rest of the line from word `i` (trimmed), or "".
    fn rest(&self, i: usize) -> &'a str {
        self.rests.get(i).map_or("", |r| r.trim())
    }

    fn none_after(&self, n: usize) -> Result<(), ParseError> {
        match self.get(n) {
            Some(w) => Err(self.usage(format!("unexpected argument {w:?}"))),
            None => Ok(()),
        }
    }

    fn peer(&self, i: usize) -> Result<u32, ParseError> {
        let w = self.need(i, "a peer id")?;
        w.parse()
            .map_err(|_| self.usage(format!("{w:?} is not a peer id (see peers)")))
    }

    fn target(&self, i: usize) -> Result<Target, ParseError> {
        let w = self.need(i, "a peer id or an IP address")?;
        if let Ok(p) = w.parse::<u32>() {
            return Ok(Target::Peer(p));
        }
        parse_ip(w)
            .map(Target::Ip)
            .ok_or_else(|| self.usage(format!("{w:?} is neither a peer id nor an IP address")))
    }

    fn entity(&self, i: usize) -> Result<EntityRef, ParseError> {
        let w = self.need(i, "an entity index or @peerId")?;
        if let Some(p) = w.strip_prefix('@') {
            return p
                .parse()
                .map(EntityRef::PeerAircraft)
                .map_err(|_| self.usage(format!("{w:?}: @ must be followed by a peer id")));
        }
        w.parse()
            .map(EntityRef::Index)
            .map_err(|_| self.usage(format!("{w:?} is not an entity index (or @peerId)")))
    }

    fn number(&self, i: usize, what: &str) -> Result<f64, ParseError> {
        let w = self.need(i, what)?;
        w.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.usage(format!("{what}: {w:?} is not a number")))
    }

    /// A position at word `i`: three numbers, or one `lat,lon[,alt]` word. Returns it and the
    /// index after it.
    fn position(&self, i: usize) -> Result<(Position, usize), ParseError> {
        let w = self.need(i, "a position")?;
        if w.contains(',') {
            let parts: Vec<&str> = w.split(',').collect();
            let nums: Option<Vec<f64>> = parts
                .iter()
                .map(|p| p.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
                .collect();
            let (lat, lon, alt) = match nums.as_deref() {
                Some([lat, lon]) => (*lat, *lon, 3000.0),
                Some([lat, lon, alt]) => (*lat, *lon, *alt),
                _ => {
                    return Err(
                        self.usage(format!("{w:?} is not <lat>,<lon> or <lat>,<lon>,<alt>"))
                    );
                }
            };
            if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                return Err(self.usage(format!(
                    "latitude must be within ±90 and longitude within ±180, got {lat}, {lon}"
                )));
            }
            return Ok((Position::Geo { lat, lon, alt }, i + 1));
        }
        let x = self.number(i, "x")?;
        let y = self.number(i + 1, "y")?;
        let z = self.number(i + 2, "z")?;
        Ok((Position::World([x, y, z]), i + 3))
    }

    fn duration(&self, i: usize, what: &str) -> Result<u64, ParseError> {
        let w = self.need(i, what)?;
        parse_duration(w).ok_or_else(|| {
            self.usage(format!(
                "{what}: {w:?} is not a duration (e.g. 90, 90s, 15m, 2h, 1h30m, 7d; at most a year)"
            ))
        })
    }
}

/// An IP address as operators write it: plain, bracketed IPv6, or IPv4-mapped IPv6 (normalised
/// to IPv4).
pub fn parse_ip(s: &str) -> Option<IpAddr> {
    let s = s.trim().trim_start_matches('[').trim_end_matches(']');
    let ip: IpAddr = s.parse().ok()?;
    Some(normalise_ip(ip))
}

/// IPv4-mapped IPv6 addresses as IPv4.
pub fn normalise_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// Splits `line` into words, remembering where each word starts (for free text).
fn split(line: &str) -> (Vec<&str>, Vec<&str>) {
    let mut words = Vec::new();
    let mut rests = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        rests.push(rest);
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        words.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    (words, rests)
}

/// Parses one command line.
pub fn parse(line: &str) -> Result<AdminCmd, ParseError> {
    let (mut words, mut rests) = split(line);
    if words.is_empty() {
        return Err(ParseError::Empty);
    }
    let name = words.remove(0);
    rests.remove(0);
    let spec = find(name).ok_or_else(|| {
        // Quote it safely: a line may carry anything.
        let shown: String = name.chars().filter(|c| !c.is_control()).take(40).collect();
        ParseError::Unknown(shown)
    })?;
    let a = Args { spec, words, rests };
    let cmd = match spec.name {
        "help" => {
            a.none_after(1)?;
            AdminCmd::Help(a.get(0).map(str::to_owned))
        }
        "status" => a.none_after(0).map(|_| AdminCmd::Status)?,
        "peers" => a.none_after(0).map(|_| AdminCmd::Peers)?,
        "tickstats" => a.none_after(0).map(|_| AdminCmd::TickStats)?,
        "bans" => a.none_after(0).map(|_| AdminCmd::Bans)?,
        "pause" => a.none_after(0).map(|_| AdminCmd::Pause)?,
        "resume" => a.none_after(0).map(|_| AdminCmd::Resume)?,
        "kick" => AdminCmd::Kick {
            target: a.target(0)?,
            reason: a.rest(1).to_owned(),
        },
        "ban" => {
            let target = a.target(0)?;
            // The word after the target is a duration when it reads as one.
            let (duration_s, reason_at) = match a.get(1).and_then(parse_duration) {
                Some(d) if d > 0 => (Some(d), 2),
                Some(_) => return Err(a.usage("a ban of 0 seconds is no ban")),
                None => (None, 1),
            };
            AdminCmd::Ban {
                target,
                duration_s,
                reason: a.rest(reason_at).to_owned(),
            }
        }
        "unban" => {
            let w = a.need(0, "an IP address")?;
            a.none_after(1)?;
            AdminCmd::Unban(
                parse_ip(w).ok_or_else(|| a.usage(format!("{w:?} is not an IP address")))?,
            )
        }
        "say" => {
            let text = a.rest(0);
            if text.is_empty() {
                return Err(a.usage("missing text"));
            }
            AdminCmd::Say(text.to_owned())
        }
        "mute" => {
            let p = a.peer(0)?;
            a.none_after(1)?;
            AdminCmd::Mute(p)
        }
        "unmute" => {
            let p = a.peer(0)?;
            a.none_after(1)?;
            AdminCmd::Unmute(p)
        }
        "spawn" => {
            let type_id = a.need(0, "an entity type")?.to_owned();
            let (at, mut i) = a.position(1)?;
            let mut faction = None;
            let mut heading_deg = 0.0;
            let mut speed_mps = None;
            while let Some(flag) = a.get(i) {
                match flag {
                    "--faction" => {
                        let w = a.need(i + 1, "a faction index")?;
                        faction = Some(w.parse().map_err(|_| {
                            a.usage(format!("--faction: {w:?} is not a faction index"))
                        })?);
                    }
                    "--heading" => heading_deg = a.number(i + 1, "--heading")?,
                    "--speed" => {
                        let v = a.number(i + 1, "--speed")?;
                        if !(0.0..=2000.0).contains(&v) {
                            return Err(a.usage("--speed must be between 0 and 2000 m/s"));
                        }
                        speed_mps = Some(v);
                    }
                    other => return Err(a.usage(format!("unexpected argument {other:?}"))),
                }
                i += 2;
            }
            AdminCmd::Spawn {
                type_id,
                at,
                faction,
                heading_deg,
                speed_mps,
            }
        }
        "kill" => {
            let e = a.entity(0)?;
            a.none_after(1)?;
            AdminCmd::Kill(e)
        }
        "tp" => {
            let entity = a.entity(0)?;
            let (at, next) = a.position(1)?;
            a.none_after(next)?;
            AdminCmd::Teleport { entity, at }
        }
        "mission" => {
            a.none_after(1)?;
            AdminCmd::Mission(a.get(0).map(str::to_owned))
        }
        "shutdown" => parse_shutdown(&a)?,
        other => return Err(ParseError::Unknown(other.to_owned())),
    };
    Ok(cmd)
}

fn parse_shutdown(a: &Args<'_>) -> Result<AdminCmd, ParseError> {
    let mut seconds: Option<u64> = None;
    let mut interval_s = None;
    let mut reason = String::new();
    let mut now = false;
    let mut i = 0;
    while let Some(w) = a.get(i) {
        match w {
            "cancel" | "--cancel" if i == 0 => {
                a.none_after(1)?;
                return Ok(AdminCmd::Shutdown(ShutdownCmd::Cancel));
            }
            "--in" | "--delay" => {
                seconds = Some(a.duration(i + 1, w)?);
                i += 2;
            }
            "--interval" => {
                let d = a.duration(i + 1, "--interval")?;
                if d == 0 {
                    return Err(a.usage("--interval must be at least 1 s"));
                }
                interval_s = Some(u32::try_from(d).unwrap_or(u32::MAX));
                i += 2;
            }
            "--now" => {
                now = true;
                i += 1;
            }
            // Confirmation is the authenticated channel itself here.
            "--force" => i += 1,
            "--reason" => {
                // Free text up to the next `--` flag.
                let mut j = i + 1;
                let mut parts = Vec::new();
                while let Some(t) = a.get(j) {
                    if t.starts_with("--") {
                        break;
                    }
                    parts.push(t);
                    j += 1;
                }
                if parts.is_empty() {
                    return Err(a.usage("--reason needs text"));
                }
                reason = parts.join(" ");
                i = j;
            }
            other => return Err(a.usage(format!("unexpected argument {other:?}"))),
        }
    }
    if now && seconds.is_some_and(|s| s > 0) {
        return Err(a.usage("give --now or --in, not both"));
    }
    let seconds = if now { 0 } else { seconds.unwrap_or(0) };
    Ok(AdminCmd::Shutdown(ShutdownCmd::Schedule {
        seconds: u32::try_from(seconds).unwrap_or(u32::MAX),
        interval_s,
        reason,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Some(90));
        assert_eq!(parse_duration("90s"), Some(90));
        assert_eq!(parse_duration("15m"), Some(900));
        assert_eq!(parse_duration("1h30m"), Some(5400));
        assert_eq!(parse_duration("7d"), Some(7 * 86_400));
        for bad in ["", "m", "1h30", "abc", "1x", "9999999999", "400d", "-5"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        assert_eq!(format_duration(5400), "1h 30m");
        assert_eq!(format_duration(45), "45s");
    }

    #[test]
    fn commands_and_aliases() {
        assert_eq!(parse("  status "), Ok(AdminCmd::Status));
        assert_eq!(parse("STATUS"), Ok(AdminCmd::Status));
        assert_eq!(
            parse("kick 7 being rude"),
            Ok(AdminCmd::Kick {
                target: Target::Peer(7),
                reason: "being rude".into()
            })
        );
        assert_eq!(
            parse("ban ::ffff:10.0.0.9 2h spam"),
            Ok(AdminCmd::Ban {
                target: Target::Ip("10.0.0.9".parse().expect("test value")),
                duration_s: Some(7200),
                reason: "spam".into()
            })
        );
        assert_eq!(
            parse("ban 3 griefing"),
            Ok(AdminCmd::Ban {
                target: Target::Peer(3),
                duration_s: None,
                reason: "griefing".into()
            })
        );
        assert_eq!(
            parse("teleport @2 36.2,-115,2500"),
            Ok(AdminCmd::Teleport {
                entity: EntityRef::PeerAircraft(2),
                at: Position::Geo {
                    lat: 36.2,
                    lon: -115.0,
                    alt: 2500.0
                }
            })
        );
        assert_eq!(
            parse("tp 4 1 2 3"),
            Ok(AdminCmd::Teleport {
                entity: EntityRef::Index(4),
                at: Position::World([1.0, 2.0, 3.0])
            })
        );
        assert_eq!(
            parse("shutdown --in 10m --reason patch 1.2 --interval 2m"),
            Ok(AdminCmd::Shutdown(ShutdownCmd::Schedule {
                seconds: 600,
                interval_s: Some(120),
                reason: "patch 1.2".into()
            }))
        );
        assert_eq!(
            parse("shutdown cancel"),
            Ok(AdminCmd::Shutdown(ShutdownCmd::Cancel))
        );
        assert_eq!(
            parse("say  hello  there"),
            Ok(AdminCmd::Say("hello  there".into()))
        );
    }

    #[test]
    fn refusals_name_the_problem_and_the_usage() {
        assert_eq!(parse(""), Err(ParseError::Empty));
        assert!(matches!(parse("frobnicate"), Err(ParseError::Unknown(n)) if n == "frobnicate"));
        for (line, needle) in [
            ("kick", "missing a peer id or an IP address"),
            ("kick bob", "neither a peer id nor an IP address"),
            ("unban 7", "not an IP address"),
            ("tp 1 2 3", "missing z"),
            ("tp 1 91,0", "latitude"),
            ("status now", "unexpected argument"),
            ("shutdown --in soon", "not a duration"),
            ("shutdown --now --in 5m", "not both"),
            ("spawn x 1 2 3 --speed 9000", "--speed"),
            ("say", "missing text"),
            ("ban 1 0s", "0 seconds"),
        ] {
            let e = parse(line).expect_err(line).to_string();
            assert!(e.contains(needle), "{line}: {e}");
            assert!(e.contains("usage: "), "{line}: {e}");
        }
    }
}
