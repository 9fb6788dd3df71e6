//! `server.toml`: the operator's configuration file. A missing file is written with every key
//! commented out at its default, so the file documents itself; unknown keys are warnings (an
//! operator's file may come from a newer or older server), wrong types and out-of-range values
//! are errors naming the key. Environment variables and command-line flags override the file.
//!
//! Owns parsing and validation only; [`FileConfig::server_config`] turns the result into the
//! library's [`ServerConfig`].

use crate::admission::AdmissionConfig;
use crate::server::{ServerConfig, SpawnPoint};
use crate::snapshot::SnapshotConfig;
use crate::snapshot::congestion::CongestionConfig;
use crate::weather::{PresetWeather, WeatherConfig};
use fl_protocol::enums::WeatherPreset;
use serde::Deserialize;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why the configuration could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the default configuration to {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    /// A value out of its range or otherwise unusable; `key` is `section.key`.
    #[error("{path}: {key}: {problem}")]
    Invalid {
        path: PathBuf,
        key: &'static str,
        problem: String,
    },
    #[error("environment variable {var}: {problem}")]
    Env { var: &'static str, problem: String },
}

/// Largest configuration file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// The documented defaults, every key commented out.
pub const DEFAULT_FILE: &str = r#"# fl-server configuration. Every key is optional; the values shown are the defaults.
# Environment overrides: FL_SERVER_BIND, FL_SERVER_PORT, FL_SERVER_DATA_DIR.
# Command-line flags override both (see fl-server --help).

[server]
# name = "fighters-legacy server"
# bind = "0.0.0.0"              # address to listen on (use 127.0.0.1 for a local-only server)
# port = 4778
# data_dir = "fl-server-data"   # the server's TLS identity lives here
# motd = ""                     # message of the day, shown to every joining player
# motd_display_s = 0            # banner time; 0 = the client's own setting
# password = ""                 # join password; empty = open server
# operator_password = ""        # admin channel password; empty = admin channel off

[world]
# draw_distance_km = 200.0
# snapshot_budget_bytes = 1200  # per peer per snapshot; 0 = unlimited
# jitter_buffer_depth = 8               # most ticks of input held for the measured jitter
# jitter_buffer_adapt_window = 240       # input arrivals the jitter percentile looks at
# jitter_buffer_hysteresis = 1
# jitter_buffer_jitter_multiplier = 1.5  # margin in ticks beyond the 99th-percentile arrival
# congestion_enabled = true
# congestion_min_send_hz = 10.0
# congestion_loss_threshold = 0.08     # loss above the path's own baseline that is congestion
# congestion_queue_delay_ms = 30       # queueing delay (beyond the path's jitter) that is congestion
# congestion_budget_floor_bytes = 400
# sim_worker_threads = 0        # 0 = one per core
# max_catchup_ticks = 5
# entity_soft_cap = 5000
# player_entity_type = "builtin:jet-trainer"
# respawn_delay_s = 3.0
# ai_aircraft = 0               # AI aircraft spawned at start
# ai_behaviour = "patrol_attack target=threat"

[spawn]
# Where pilots appear: eight aircraft in a line abreast 400 m apart, centred on the anchor and
# across the heading. The anchor is lat_deg and lon_deg (degrees, north and east positive; give
# both or neither); without them the line is centred on the world origin (the north pole, where a
# compass means little). The base pack's Nevada airfield is lat_deg 36.24917, lon_deg -114.99611.
# Command line: --spawn LAT,LON[,ALTITUDE_M[,HEADING_DEG]].
# altitude_m = 3000.0           # geodetic (above sea level)
# heading_deg = 0.0             # compass heading at the anchor, degrees clockwise from north
# speed_mps = 200.0

[network]
# compress_snapshots = true
# idle_timeout_s = 15.0
# max_connections = 256

[admission]
# bans = []                     # IP addresses refused
# allowlist = []                # when non-empty, only these addresses may connect
# connect_burst = 16            # connection attempts one IP may make at once (a LAN party, a NAT)
# connect_rate = 10             # then this many per IP per connect_window_s, sustained
# connect_window_s = 10.0
# max_per_ip = 32               # concurrent connections per IP
# admin_auth_max_failures = 5
# admin_auth_lockout_s = 300.0
# allow_observers = true
# required_packs = []           # pack ids a client must have mounted
# request_timeout_s = 10.0
# ban_file = ""                 # the operator's bans (ban/unban); empty = kept in memory only

[shutdown]
# warning_interval_s = 300      # seconds between shutdown countdown notices (plus one at T-60 s)

[weather]
# presets = ["clear", "partly_cloudy", "overcast", "partly_cloudy"]
# preset_minutes = 20.0
# start_hour = 10.0
# time_scale = 1.0

[content]
# mods_dirs = ["mods"]
# packs = []                    # pack directories loaded directly

[mission]
# A mission the server runs (ids are <pack id>:<file stem>, e.g. "fl-base-pack:ia_dogfight";
# the pack must be loaded, see [content]). It starts with the server; pilots who join take its
# `player: true` slots in join order (beyond them they fly the [world] player_entity_type).
# Command line: --mission ID (replaces file and rotation).
# file = ""                     # one mission; empty = none (free flight)
# rotation = []                 # or several, in turn: ["fl-base-pack:ia_dogfight", "..."]
# on_end = "restart"            # when it ends: "restart" it, "rotate" to the next, or "stop" it
# end_delay_s = 10.0            # seconds between the end (everyone sees the result) and on_end

[chat]
# rate_per_s = 1.0              # chat lines a player may send per second, sustained
# burst = 5                     # and at once; lines beyond are dropped silently
# blocked_words = []            # whole words (case-insensitive) shown as *** in chat

[match]
# mode = "sandbox"              # "sandbox": one untimed match forever (team scores still count);
#                               # "team_deathmatch": Warmup, Active, Ending, PostMatch, again
# score_limit = 20              # team score that ends a team_deathmatch; 0 = none
# time_limit_s = 900.0          # length of its Active phase; 0 = untimed
# warmup_s = 30.0               # kills do not score during the warmup; 0 = none
# post_match_s = 20.0           # results shown before the next warmup
# max_per_team = 0              # pilots per team; a join when every team is full is refused
# max_team_imbalance = 1        # a team switch may leave the target team this much larger
# reconnect_grace_s = 60.0      # a dropped pilot gets team, score and name back; 0 = off

[discovery]
# beacon_enabled = false        # LAN presence broadcasts (UDP, outside the game transport)
# beacon_target = "255.255.255.255:4780"
# beacon_interval_ms = 2000
# query_enabled = true          # answer server-info queries (UDP; server browsers' details)
# query_port = 0                # 0 = game port + 1, or an ephemeral port when that is taken
# query_rate_per_address = 4    # replies per second to one address (1 … 100)
# query_rate_global = 256       # replies per second in all (1 … 10000)

[http]
# The operator's status page, its JSON API (/api/status) and Prometheus metrics (/metrics).
# Off unless bind is set; keep it on loopback unless you know who can reach the port.
# Command line: --http ADDR.
# bind = ""                     # e.g. "127.0.0.1:8080"
# admin_token = ""              # unlocks the admin commands on the page; empty = read-only
# admin_max_failures = 5        # failed logins from one address before it is locked out
# admin_lockout_s = 300.0
# session_ttl_s = 3600.0        # an idle login expires after this
# max_connections = 64          # HTTP connections served at once
"#;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct ServerSection {
    pub name: String,
    pub bind: String,
    pub port: u16,
    pub data_dir: PathBuf,
    pub motd: String,
    pub motd_display_s: u16,
    pub password: String,
    pub operator_password: String,
}

impl Default for ServerSection {
    fn default() -> Self {
        Self {
            name: "fighters-legacy server".into(),
            bind: "0.0.0.0".into(),
            port: fl_protocol::ids::DEFAULT_GAME_PORT,
            data_dir: "fl-server-data".into(),
            motd: String::new(),
            motd_display_s: 0,
            password: String::new(),
            operator_password: String::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct WorldSection {
    pub draw_distance_km: f64,
    pub snapshot_budget_bytes: usize,
    pub jitter_buffer_depth: usize,
    pub jitter_buffer_adapt_window: f64,
    pub jitter_buffer_hysteresis: usize,
    pub jitter_buffer_jitter_multiplier: f64,
    pub congestion_enabled: bool,
    pub congestion_min_send_hz: f64,
    pub congestion_loss_threshold: f64,
    pub congestion_queue_delay_ms: f64,
    pub congestion_budget_floor_bytes: usize,
    pub sim_worker_threads: usize,
    pub max_catchup_ticks: u32,
    pub entity_soft_cap: usize,
    pub player_entity_type: String,
    pub respawn_delay_s: f64,
    pub ai_aircraft: usize,
    pub ai_behaviour: String,
}

impl Default for WorldSection {
    fn default() -> Self {
        let s = SnapshotConfig::default();
        let c = CongestionConfig::default();
        let j = crate::jitter::JitterConfig::default();
        Self {
            draw_distance_km: s.draw_distance_m / 1000.0,
            snapshot_budget_bytes: s.budget_bytes,
            jitter_buffer_depth: j.max_depth,
            jitter_buffer_adapt_window: j.adapt_window,
            jitter_buffer_hysteresis: j.hysteresis,
            jitter_buffer_jitter_multiplier: j.jitter_multiplier,
            congestion_enabled: c.enabled,
            congestion_min_send_hz: c.min_send_hz,
            congestion_loss_threshold: c.loss_threshold,
            congestion_queue_delay_ms: c.queue_delay_target.as_secs_f64() * 1000.0,
            congestion_budget_floor_bytes: c.budget_floor_bytes,
            sim_worker_threads: 0,
            max_catchup_ticks: 5,
            entity_soft_cap: 5000,
            player_entity_type: "builtin:jet-trainer".into(),
            respawn_delay_s: 3.0,
            ai_aircraft: 0,
            ai_behaviour: "patrol_attack target=threat".into(),
        }
    }
}

/// `[spawn]`: the anchor and the line abreast pilots appear in.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct SpawnSection {
    /// Anchor latitude, degrees north (with `lon_deg`, or neither).
    pub lat_deg: Option<f64>,
    /// Anchor longitude, degrees east.
    pub lon_deg: Option<f64>,
    pub altitude_m: f64,
    pub heading_deg: f64,
    pub speed_mps: f64,
}

impl Default for SpawnSection {
    fn default() -> Self {
        let f = SpawnPoint::FALLBACK;
        Self {
            lat_deg: None,
            lon_deg: None,
            altitude_m: f.altitude_m,
            heading_deg: f.heading_deg,
            speed_mps: f.speed_mps,
        }
    }
}

/// Pilots in one spawn line.
const SPAWN_LINE: u32 = 8;
/// Spacing of the spawn line, m.
const SPAWN_SPACING_M: f64 = 400.0;

impl SpawnSection {
    /// The spawn points this section describes: a line abreast across the heading, centred on
    /// the anchor.
    pub fn spawn_points(&self) -> Vec<SpawnPoint> {
        let anchor = match (self.lat_deg, self.lon_deg) {
            (Some(lat_deg), Some(lon_deg)) => Some(crate::server::GeoAnchor { lat_deg, lon_deg }),
            _ => None,
        };
        let h = self.heading_deg.to_radians();
        // Right of the heading in the level frame (x east, z south).
        let (rx, rz) = (libm::cos(h), libm::sin(h));
        (0..SPAWN_LINE)
            .map(|i| {
                let d = f64::from(i) * SPAWN_SPACING_M
                    - f64::from(SPAWN_LINE - 1) * SPAWN_SPACING_M / 2.0;
                SpawnPoint {
                    x: d * rx,
                    z: d * rz,
                    altitude_m: self.altitude_m,
                    heading_deg: self.heading_deg,
                    speed_mps: self.speed_mps,
                    anchor,
                }
            })
            .collect()
    }

    /// Range checks (the file's and the command line's).
    pub fn check(&self, path: &Path) -> Result<(), ConfigError> {
        let c = Check { path };
        match (self.lat_deg, self.lon_deg) {
            (Some(lat), Some(lon)) => {
                c.float("spawn.lat_deg", lat, -90.0, 90.0)?;
                c.float("spawn.lon_deg", lon, -180.0, 180.0)?;
            }
            (None, None) => {}
            (Some(_), None) => {
                return Err(c.bad("spawn.lon_deg", "is needed with spawn.lat_deg".into()));
            }
            (None, Some(_)) => {
                return Err(c.bad("spawn.lat_deg", "is needed with spawn.lon_deg".into()));
            }
        }
        c.float("spawn.altitude_m", self.altitude_m, -400.0, 30_000.0)?;
        if !(self.heading_deg.is_finite() && (0.0..360.0).contains(&self.heading_deg)) {
            return Err(c.bad(
                "spawn.heading_deg",
                format!("must be at least 0 and below 360, got {}", self.heading_deg),
            ));
        }
        c.float("spawn.speed_mps", self.speed_mps, 50.0, 1000.0)?;
        Ok(())
    }

    /// Applies `--spawn LAT,LON[,ALTITUDE_M[,HEADING_DEG]]`.
    pub fn apply_arg(&mut self, arg: &str) -> Result<(), String> {
        let parts: Vec<&str> = arg.split(',').map(str::trim).collect();
        if !(2..=4).contains(&parts.len()) {
            return Err(format!(
                "--spawn {arg:?}: expected LAT,LON[,ALTITUDE_M[,HEADING_DEG]] (e.g. 36.24917,-114.99611,3000,270)"
            ));
        }
        let num = |what: &str, v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("--spawn {arg:?}: {what} {v:?} is not a number"))
        };
        self.lat_deg = Some(num("latitude", parts[0])?);
        self.lon_deg = Some(num("longitude", parts[1])?);
        if let Some(a) = parts.get(2) {
            self.altitude_m = num("altitude", a)?;
        }
        if let Some(h) = parts.get(3) {
            self.heading_deg = num("heading", h)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct NetworkSection {
    pub compress_snapshots: bool,
    pub idle_timeout_s: f64,
    pub max_connections: usize,
}

impl Default for NetworkSection {
    fn default() -> Self {
        Self {
            compress_snapshots: true,
            idle_timeout_s: 15.0,
            max_connections: 256,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct AdmissionSection {
    pub bans: Vec<IpAddr>,
    pub allowlist: Vec<IpAddr>,
    pub connect_burst: usize,
    pub connect_rate: usize,
    pub connect_window_s: f64,
    pub max_per_ip: usize,
    pub admin_auth_max_failures: u32,
    pub admin_auth_lockout_s: f64,
    pub allow_observers: bool,
    pub required_packs: Vec<String>,
    pub request_timeout_s: f64,
    /// The ban list file (`admin::bans`); empty = bans live in memory only.
    pub ban_file: PathBuf,
}

impl Default for AdmissionSection {
    fn default() -> Self {
        let a = AdmissionConfig::default();
        Self {
            bans: Vec::new(),
            allowlist: Vec::new(),
            connect_burst: a.connect_burst,
            connect_rate: a.connect_rate,
            connect_window_s: a.connect_window_ticks as f64 / 60.0,
            max_per_ip: a.max_per_ip,
            admin_auth_max_failures: a.admin_auth_max_failures,
            admin_auth_lockout_s: a.admin_auth_lockout_ticks as f64 / 60.0,
            allow_observers: a.allow_observers,
            required_packs: Vec::new(),
            request_timeout_s: a.request_timeout_ticks as f64 / 60.0,
            ban_file: PathBuf::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct ShutdownSection {
    pub warning_interval_s: u32,
}

impl Default for ShutdownSection {
    fn default() -> Self {
        Self {
            warning_interval_s: ServerConfig::default().shutdown_warning_interval_s,
        }
    }
}

/// Range of `[shutdown] warning_interval_s`.
pub const WARNING_INTERVAL_S: std::ops::RangeInclusive<u32> = 1..=86_400;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct WeatherSection {
    pub presets: Vec<String>,
    pub preset_minutes: f64,
    pub start_hour: f64,
    pub time_scale: f64,
}

impl Default for WeatherSection {
    fn default() -> Self {
        Self {
            presets: ["clear", "partly_cloudy", "overcast", "partly_cloudy"]
                .map(String::from)
                .to_vec(),
            preset_minutes: 20.0,
            start_hour: 10.0,
            time_scale: 1.0,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct ContentSection {
    pub mods_dirs: Vec<PathBuf>,
    pub packs: Vec<PathBuf>,
}

impl Default for ContentSection {
    fn default() -> Self {
        Self {
            mods_dirs: vec!["mods".into()],
            packs: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct MissionSection {
    pub file: String,
    pub rotation: Vec<String>,
    pub on_end: String,
    pub end_delay_s: f64,
}

impl Default for MissionSection {
    fn default() -> Self {
        Self {
            file: String::new(),
            rotation: Vec::new(),
            on_end: "restart".into(),
            end_delay_s: 10.0,
        }
    }
}

/// Most missions in a rotation.
pub const MAX_ROTATION: usize = 64;

impl MissionSection {
    /// The missions to run, in order: `file`, or `rotation` (empty: no mission).
    pub fn missions(&self) -> Vec<String> {
        if self.file.is_empty() {
            self.rotation.clone()
        } else {
            vec![self.file.clone()]
        }
    }

    /// `on_end` as the director's policy (validated by parsing).
    pub fn on_end(&self) -> crate::mission_director::OnEnd {
        crate::mission_director::OnEnd::from_config(&self.on_end)
            .unwrap_or(crate::mission_director::OnEnd::Restart)
    }

    /// `end_delay_s` in world ticks.
    pub fn end_delay_ticks(&self) -> u64 {
        (self.end_delay_s * 60.0).round().max(0.0) as u64
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct DiscoverySection {
    pub beacon_enabled: bool,
    pub beacon_target: std::net::SocketAddr,
    pub beacon_interval_ms: u64,
    pub query_enabled: bool,
    pub query_port: u16,
    pub query_rate_per_address: u32,
    pub query_rate_global: u32,
}

impl Default for DiscoverySection {
    fn default() -> Self {
        let d = crate::discovery::DiscoveryConfig::default();
        Self {
            beacon_enabled: false,
            beacon_target: d.beacon_target,
            beacon_interval_ms: d.beacon_interval.as_millis() as u64,
            query_enabled: d.query_enabled,
            query_port: 0,
            query_rate_per_address: d.per_address_rate,
            query_rate_global: d.global_rate,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct HttpSection {
    /// Empty = off.
    pub bind: String,
    pub admin_token: String,
    pub admin_max_failures: u32,
    pub admin_lockout_s: f64,
    pub session_ttl_s: f64,
    pub max_connections: usize,
}

impl Default for HttpSection {
    fn default() -> Self {
        let d = crate::http::HttpConfig::default();
        Self {
            bind: String::new(),
            admin_token: String::new(),
            admin_max_failures: d.auth.max_failures,
            admin_lockout_s: d.auth.lockout.as_secs_f64(),
            session_ttl_s: d.auth.session_ttl.as_secs_f64(),
            max_connections: d.max_connections,
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct ChatSection {
    pub rate_per_s: f64,
    pub burst: u32,
    pub blocked_words: Vec<String>,
}

impl Default for ChatSection {
    fn default() -> Self {
        let c = crate::social::ChatConfig::default();
        Self {
            rate_per_s: c.rate_per_s,
            burst: c.burst,
            blocked_words: c.blocked_words,
        }
    }
}

impl HttpSection {
    /// The endpoint's settings, or `None` when it is off (`bind` empty and no `--http`
    /// address). `bind` was validated.
    pub fn http_config(
        &self,
        bind_override: Option<std::net::SocketAddr>,
    ) -> Option<crate::http::HttpConfig> {
        let bind = bind_override.or_else(|| self.bind.trim().parse().ok())?;
        let secs = |s: f64| Duration::from_secs_f64(s.max(0.0));
        Some(crate::http::HttpConfig {
            bind,
            admin_token: Some(self.admin_token.clone()).filter(|t| !t.is_empty()),
            auth: crate::http::AuthPolicy {
                max_failures: self.admin_max_failures,
                lockout: secs(self.admin_lockout_s),
                session_ttl: secs(self.session_ttl_s),
            },
            max_connections: self.max_connections,
            ..crate::http::HttpConfig::default()
        })
    }
}

/// Longest blocked word, bytes.
pub const MAX_BLOCKED_WORD_BYTES: usize = 32;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct MatchSection {
    pub mode: String,
    pub score_limit: u16,
    pub time_limit_s: f64,
    pub warmup_s: f64,
    pub post_match_s: f64,
    pub max_per_team: u32,
    pub max_team_imbalance: u32,
    pub reconnect_grace_s: f64,
}

impl Default for MatchSection {
    fn default() -> Self {
        Self {
            mode: "sandbox".into(),
            score_limit: 20,
            time_limit_s: 900.0,
            warmup_s: 30.0,
            post_match_s: 20.0,
            max_per_team: 0,
            max_team_imbalance: 1,
            reconnect_grace_s: 60.0,
        }
    }
}

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct FileConfig {
    pub server: ServerSection,
    pub world: WorldSection,
    pub spawn: SpawnSection,
    pub network: NetworkSection,
    pub admission: AdmissionSection,
    pub shutdown: ShutdownSection,
    pub weather: WeatherSection,
    pub content: ContentSection,
    pub mission: MissionSection,
    pub chat: ChatSection,
    #[serde(rename = "match")]
    pub match_: MatchSection,
    pub discovery: DiscoverySection,
    pub http: HttpSection,
}

/// A loaded configuration and what the operator should know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub config: FileConfig,
    /// Unknown keys (`section.key`), each worth a warning.
    pub unknown_keys: Vec<String>,
    /// Whether the file did not exist and was written with the defaults.
    pub created: bool,
}

/// Parses configuration text.
pub fn parse(path: &Path, text: &str) -> Result<(FileConfig, Vec<String>), ConfigError> {
    let de = toml::Deserializer::parse(text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let mut unknown = Vec::new();
    let cfg: FileConfig = serde_ignored::deserialize(de, |p| unknown.push(p.to_string())).map_err(
        |e: toml::de::Error| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        },
    )?;
    cfg.validate(path)?;
    Ok((cfg, unknown))
}

/// Loads `path`, writing the commented defaults first when it does not exist.
pub fn load_or_create(path: &Path) -> Result<Loaded, ConfigError> {
    let created = !path.exists();
    if created {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| ConfigError::Write {
                path: path.to_owned(),
                source,
            })?;
        }
        std::fs::write(path, DEFAULT_FILE).map_err(|source| ConfigError::Write {
            path: path.to_owned(),
            source,
        })?;
    }
    let meta = std::fs::metadata(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(ConfigError::Parse {
            path: path.to_owned(),
            message: format!("{} bytes is not a configuration file", meta.len()),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    let (config, unknown_keys) = parse(path, &text)?;
    Ok(Loaded {
        config,
        unknown_keys,
        created,
    })
}

/// Builds the range errors of one file.
struct Check<'a> {
    path: &'a Path,
}

impl Check<'_> {
    fn bad(&self, key: &'static str, problem: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            key,
            problem,
        }
    }

    /// An integer setting in `min..=max`.
    fn int<T>(&self, key: &'static str, value: T, min: T, max: T) -> Result<(), ConfigError>
    where
        T: PartialOrd + std::fmt::Display + Copy,
    {
        if value < min || value > max {
            return Err(self.bad(key, format!("must be between {min} and {max}, got {value}")));
        }
        Ok(())
    }

    /// A finite float setting in `min..=max`.
    fn float(&self, key: &'static str, value: f64, min: f64, max: f64) -> Result<(), ConfigError> {
        if !(value.is_finite() && (min..=max).contains(&value)) {
            return Err(self.bad(key, format!("must be between {min} and {max}, got {value}")));
        }
        Ok(())
    }

    /// A text setting that travels in a wire field of at most `max` bytes (NUL-terminated
    /// fields cannot carry a NUL either).
    fn bytes(
        &self,
        key: &'static str,
        value: &str,
        max: usize,
        field: &str,
    ) -> Result<(), ConfigError> {
        if value.len() > max {
            return Err(self.bad(
                key,
                format!("is {} bytes; {field} carries at most {max}", value.len()),
            ));
        }
        if value.contains('\0') {
            return Err(self.bad(key, format!("contains a NUL, which {field} cannot carry")));
        }
        Ok(())
    }
}

fn preset_from_name(name: &str) -> Option<WeatherPreset> {
    Some(match name {
        "clear" => WeatherPreset::Clear,
        "partly_cloudy" => WeatherPreset::PartlyCloudy,
        "overcast" => WeatherPreset::Overcast,
        "rain" => WeatherPreset::Rain,
        "storm" => WeatherPreset::Storm,
        "snow" => WeatherPreset::Snow,
        "blizzard" => WeatherPreset::Blizzard,
        _ => return None,
    })
}

impl FileConfig {
    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let c = Check { path };
        let s = &self.server;
        c.bytes(
            "server.operator_password",
            &s.operator_password,
            fl_protocol::msg::admin::ADMIN_TOKEN_MAX_BYTES,
            "the admin token field of MsgAdminCommand",
        )?;
        c.bytes(
            "server.password",
            &s.password,
            fl_protocol::tlv::MAX_JOIN_PASSWORD_BYTES,
            "ConnectJoinPassword",
        )?;
        if s.motd.len() > fl_protocol::msg::handshake::MAX_MOTD_BYTES {
            return Err(c.bad(
                "server.motd",
                format!(
                    "is {} bytes; MsgMotd carries at most {}",
                    s.motd.len(),
                    fl_protocol::msg::handshake::MAX_MOTD_BYTES
                ),
            ));
        }

        let w = &self.world;
        c.float("world.draw_distance_km", w.draw_distance_km, 1.0, 1000.0)?;
        if w.snapshot_budget_bytes != 0 && !(200..=65_536).contains(&w.snapshot_budget_bytes) {
            return Err(c.bad(
                "world.snapshot_budget_bytes",
                format!(
                    "must be 0 (unlimited) or between 200 and 65536, got {}",
                    w.snapshot_budget_bytes
                ),
            ));
        }
        c.int("world.jitter_buffer_depth", w.jitter_buffer_depth, 1, 60)?;
        c.float(
            "world.jitter_buffer_adapt_window",
            w.jitter_buffer_adapt_window,
            1.0,
            3600.0,
        )?;
        c.int(
            "world.jitter_buffer_hysteresis",
            w.jitter_buffer_hysteresis,
            0,
            60,
        )?;
        c.float(
            "world.jitter_buffer_jitter_multiplier",
            w.jitter_buffer_jitter_multiplier,
            0.0,
            16.0,
        )?;
        c.float(
            "world.congestion_min_send_hz",
            w.congestion_min_send_hz,
            1.0,
            60.0,
        )?;
        c.float(
            "world.congestion_loss_threshold",
            w.congestion_loss_threshold,
            0.0,
            1.0,
        )?;
        c.float(
            "world.congestion_queue_delay_ms",
            w.congestion_queue_delay_ms,
            5.0,
            1000.0,
        )?;
        c.int(
            "world.congestion_budget_floor_bytes",
            w.congestion_budget_floor_bytes,
            100,
            65_536,
        )?;
        c.int("world.sim_worker_threads", w.sim_worker_threads, 0, 256)?;
        c.int("world.max_catchup_ticks", w.max_catchup_ticks, 0, 600)?;
        c.int("world.entity_soft_cap", w.entity_soft_cap, 1, 1_000_000)?;
        c.float("world.respawn_delay_s", w.respawn_delay_s, 0.0, 3600.0)?;
        if w.ai_aircraft > w.entity_soft_cap {
            return Err(c.bad(
                "world.ai_aircraft",
                format!(
                    "must not exceed world.entity_soft_cap ({}), got {}",
                    w.entity_soft_cap, w.ai_aircraft
                ),
            ));
        }

        self.spawn.check(path)?;

        let n = &self.network;
        c.float("network.idle_timeout_s", n.idle_timeout_s, 1.0, 600.0)?;
        c.int("network.max_connections", n.max_connections, 1, 10_000)?;

        let a = &self.admission;
        c.int("admission.connect_burst", a.connect_burst, 1, 1024)?;
        c.int("admission.connect_rate", a.connect_rate, 1, 1000)?;
        c.float(
            "admission.connect_window_s",
            a.connect_window_s,
            1.0,
            3600.0,
        )?;
        c.int("admission.max_per_ip", a.max_per_ip, 1, 1024)?;
        c.int(
            "admission.admin_auth_max_failures",
            a.admin_auth_max_failures,
            1,
            1000,
        )?;
        c.float(
            "admission.admin_auth_lockout_s",
            a.admin_auth_lockout_s,
            1.0,
            86_400.0,
        )?;
        c.float(
            "admission.request_timeout_s",
            a.request_timeout_s,
            1.0,
            600.0,
        )?;

        let wx = &self.weather;
        if wx.presets.is_empty() {
            return Err(c.bad("weather.presets", "needs at least one preset".into()));
        }
        if let Some(p) = wx.presets.iter().find(|p| preset_from_name(p).is_none()) {
            return Err(c.bad(
                "weather.presets",
                format!(
                    "{p:?} is not one of clear, partly_cloudy, overcast, rain, storm, snow, blizzard"
                ),
            ));
        }
        c.float("weather.preset_minutes", wx.preset_minutes, 0.1, 10_000.0)?;
        if !(wx.start_hour.is_finite() && (0.0..24.0).contains(&wx.start_hour)) {
            return Err(c.bad(
                "weather.start_hour",
                format!("must be at least 0 and below 24, got {}", wx.start_hour),
            ));
        }
        c.float("weather.time_scale", wx.time_scale, 0.0, 3600.0)?;

        let d = &self.discovery;
        c.int(
            "discovery.beacon_interval_ms",
            d.beacon_interval_ms,
            *crate::discovery::BEACON_INTERVAL_MS.start(),
            *crate::discovery::BEACON_INTERVAL_MS.end(),
        )?;
        if d.beacon_target.port() == 0 || d.beacon_target.ip().is_unspecified() {
            return Err(c.bad(
                "discovery.beacon_target",
                format!(
                    "must name an address and a port to send to (e.g. \"255.255.255.255:{}\"), got {}",
                    fl_protocol::ids::DISCOVERY_PORT,
                    d.beacon_target
                ),
            ));
        }
        // `query_port`: every value is valid (0 = game port + 1, falling back to an
        // ephemeral port when that one is taken).
        c.int(
            "discovery.query_rate_per_address",
            d.query_rate_per_address,
            *crate::discovery::QUERY_RATE_PER_ADDRESS.start(),
            *crate::discovery::QUERY_RATE_PER_ADDRESS.end(),
        )?;
        c.int(
            "discovery.query_rate_global",
            d.query_rate_global,
            *crate::discovery::QUERY_RATE_GLOBAL.start(),
            *crate::discovery::QUERY_RATE_GLOBAL.end(),
        )?;

        c.int(
            "shutdown.warning_interval_s",
            self.shutdown.warning_interval_s,
            *WARNING_INTERVAL_S.start(),
            *WARNING_INTERVAL_S.end(),
        )?;
        if self.admission.ban_file.as_os_str().len() > 4096 {
            return Err(c.bad("admission.ban_file", "is longer than 4096 bytes".into()));
        }

        let h = &self.http;
        if !h.bind.trim().is_empty() && h.bind.trim().parse::<std::net::SocketAddr>().is_err() {
            return Err(c.bad(
                "http.bind",
                format!(
                    "must be an address and port such as \"127.0.0.1:8080\" (or empty = off), got {:?}",
                    h.bind
                ),
            ));
        }
        c.int("http.admin_max_failures", h.admin_max_failures, 1, 1000)?;
        c.float("http.admin_lockout_s", h.admin_lockout_s, 1.0, 86_400.0)?;
        c.float("http.session_ttl_s", h.session_ttl_s, 60.0, 86_400.0)?;
        c.int("http.max_connections", h.max_connections, 1, 4096)?;
        if h.admin_token.len() > 256 || h.admin_token.chars().any(char::is_control) {
            return Err(c.bad(
                "http.admin_token",
                "must be at most 256 bytes of printable text".into(),
            ));
        }
        let ch = &self.chat;
        c.float("chat.rate_per_s", ch.rate_per_s, 0.1, 50.0)?;
        c.int("chat.burst", ch.burst, 1, 100)?;
        if ch.blocked_words.len() > crate::social::MAX_BLOCKED_WORDS {
            return Err(c.bad(
                "chat.blocked_words",
                format!(
                    "has {} words; at most {}",
                    ch.blocked_words.len(),
                    crate::social::MAX_BLOCKED_WORDS
                ),
            ));
        }
        if let Some(w) = ch.blocked_words.iter().find(|w| {
            w.is_empty()
                || w.len() > MAX_BLOCKED_WORD_BYTES
                || !w.chars().all(char::is_alphanumeric)
        }) {
            return Err(c.bad(
                "chat.blocked_words",
                format!(
                    "{w:?} is not a word (1 to {MAX_BLOCKED_WORD_BYTES} bytes of letters and digits)"
                ),
            ));
        }
        let mt = &self.match_;
        if !matches!(mt.mode.as_str(), "sandbox" | "team_deathmatch") {
            return Err(c.bad(
                "match.mode",
                format!(
                    "must be \"sandbox\" or \"team_deathmatch\", got {:?}",
                    mt.mode
                ),
            ));
        }
        c.int("match.score_limit", mt.score_limit, 0, 10_000)?;
        c.float("match.time_limit_s", mt.time_limit_s, 0.0, 86_400.0)?;
        c.float("match.warmup_s", mt.warmup_s, 0.0, 3600.0)?;
        c.float("match.post_match_s", mt.post_match_s, 0.0, 3600.0)?;
        c.int("match.max_per_team", mt.max_per_team, 0, 1000)?;
        c.int("match.max_team_imbalance", mt.max_team_imbalance, 0, 1000)?;
        c.float("match.reconnect_grace_s", mt.reconnect_grace_s, 0.0, 3600.0)?;

        let m = &self.mission;
        if crate::mission_director::OnEnd::from_config(&m.on_end).is_none() {
            return Err(c.bad(
                "mission.on_end",
                format!(
                    "must be \"restart\", \"rotate\" or \"stop\", got {:?}",
                    m.on_end
                ),
            ));
        }
        c.float("mission.end_delay_s", m.end_delay_s, 0.0, 3600.0)?;
        if !m.file.is_empty() && !m.rotation.is_empty() {
            return Err(c.bad(
                "mission.rotation",
                "give file (one mission) or rotation (several), not both".into(),
            ));
        }
        if m.rotation.len() > MAX_ROTATION {
            return Err(c.bad(
                "mission.rotation",
                format!("has {} missions; at most {MAX_ROTATION}", m.rotation.len()),
            ));
        }
        for (key, id) in std::iter::once(("mission.file", &m.file))
            .filter(|(_, id)| !id.is_empty())
            .chain(m.rotation.iter().map(|id| ("mission.rotation", id)))
        {
            let ok = id.len() <= 256
                && id
                    .split_once(':')
                    .is_some_and(|(p, stem)| !p.is_empty() && !stem.is_empty());
            if !ok {
                return Err(c.bad(
                    key,
                    format!("{id:?} is not a mission id (write <pack id>:<file stem>)"),
                ));
            }
        }
        Ok(())
    }

    /// Applies `FL_SERVER_BIND`, `FL_SERVER_PORT` and `FL_SERVER_DATA_DIR` from `env`.
    pub fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        if let Some(v) = env("FL_SERVER_BIND") {
            self.server.bind = v;
        }
        if let Some(v) = env("FL_SERVER_PORT") {
            self.server.port = v.parse().map_err(|_| ConfigError::Env {
                var: "FL_SERVER_PORT",
                problem: format!("{v:?} is not a port number"),
            })?;
        }
        if let Some(v) = env("FL_SERVER_DATA_DIR") {
            self.server.data_dir = v.into();
        }
        Ok(())
    }

    /// The library configuration this file describes.
    pub fn server_config(&self) -> ServerConfig {
        let w = &self.world;
        let secs = |s: f64| (s * 60.0).round().max(0.0) as u64;
        let mut cfg = ServerConfig::default();
        cfg.world.entity_cap = w.entity_soft_cap;
        cfg.world.sim_workers = if w.sim_worker_threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            w.sim_worker_threads
        };
        cfg.snapshot.draw_distance_m = w.draw_distance_km * 1000.0;
        cfg.snapshot.budget_bytes = w.snapshot_budget_bytes;
        cfg.snapshot.compress = self.network.compress_snapshots;
        cfg.snapshot.congestion = CongestionConfig {
            enabled: w.congestion_enabled,
            loss_threshold: w.congestion_loss_threshold,
            queue_delay_target: Duration::from_secs_f64(w.congestion_queue_delay_ms / 1000.0),
            min_send_hz: w.congestion_min_send_hz,
            budget_floor_bytes: w.congestion_budget_floor_bytes,
            ..CongestionConfig::default()
        };
        cfg.jitter.max_depth = w.jitter_buffer_depth;
        cfg.jitter.adapt_window = w.jitter_buffer_adapt_window;
        cfg.jitter.hysteresis = w.jitter_buffer_hysteresis;
        cfg.jitter.jitter_multiplier = w.jitter_buffer_jitter_multiplier;
        cfg.player_entity_type = w.player_entity_type.clone();
        cfg.spawn_points = self.spawn.spawn_points();
        cfg.respawn_delay_ticks = secs(w.respawn_delay_s);
        cfg.motd = self.server.motd.clone();
        cfg.motd_display_s = self.server.motd_display_s;
        cfg.operator_password =
            Some(self.server.operator_password.clone()).filter(|p| !p.is_empty());
        cfg.shutdown_warning_interval_s = self.shutdown.warning_interval_s;
        let a = &self.admission;
        cfg.admission = AdmissionConfig {
            bans: a.bans.iter().copied().collect(),
            allowlist: (!a.allowlist.is_empty()).then(|| a.allowlist.iter().copied().collect()),
            connect_burst: a.connect_burst,
            connect_rate: a.connect_rate,
            connect_window_ticks: secs(a.connect_window_s),
            max_per_ip: a.max_per_ip,
            admin_auth_max_failures: a.admin_auth_max_failures,
            admin_auth_lockout_ticks: secs(a.admin_auth_lockout_s),
            password: Some(self.server.password.clone()).filter(|p| !p.is_empty()),
            required_packs: a.required_packs.clone(),
            allow_observers: a.allow_observers,
            request_timeout_ticks: secs(a.request_timeout_s),
        };
        let wx = &self.weather;
        cfg.weather = WeatherConfig {
            cycle: wx
                .presets
                .iter()
                .filter_map(|p| preset_from_name(p))
                .map(PresetWeather::typical)
                .collect(),
            preset_ticks: secs(wx.preset_minutes * 60.0),
            start_hour: wx.start_hour,
            time_scale: wx.time_scale,
            ..WeatherConfig::default()
        };
        let mt = &self.match_;
        cfg.social = crate::social::SocialConfig {
            chat: crate::social::ChatConfig {
                rate_per_s: self.chat.rate_per_s,
                burst: self.chat.burst,
                blocked_words: self.chat.blocked_words.clone(),
            },
            rules: (mt.mode == "team_deathmatch").then(|| crate::social::MatchRules {
                score_limit: mt.score_limit,
                time_limit_ticks: secs(mt.time_limit_s),
                warmup_ticks: secs(mt.warmup_s),
                post_match_ticks: secs(mt.post_match_s),
            }),
            max_per_team: mt.max_per_team,
            max_team_imbalance: mt.max_team_imbalance,
            reconnect_grace_ticks: secs(mt.reconnect_grace_s),
        };
        cfg
    }

    /// The discovery settings for a server bound to `bind` on `game_port`.
    pub fn discovery_config(
        &self,
        bind: IpAddr,
        game_port: u16,
    ) -> crate::discovery::DiscoveryConfig {
        let d = &self.discovery;
        crate::discovery::DiscoveryConfig {
            beacon_enabled: d.beacon_enabled,
            beacon_target: d.beacon_target,
            beacon_interval: Duration::from_millis(d.beacon_interval_ms),
            query_enabled: d.query_enabled,
            query_bind: std::net::SocketAddr::new(
                bind,
                if d.query_port == 0 {
                    // 65535 + 1 wraps to 0: an ephemeral port.
                    game_port.wrapping_add(1)
                } else {
                    d.query_port
                },
            ),
            query_fallback: d.query_port == 0,
            per_address_rate: d.query_rate_per_address,
            global_rate: d.query_rate_global,
        }
    }

    /// The ban list file, if one is configured.
    pub fn ban_file(&self) -> Option<&Path> {
        Some(self.admission.ban_file.as_path()).filter(|p| !p.as_os_str().is_empty())
    }

    /// The transport's idle timeout.
    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.network.idle_timeout_s)
    }
}

/// The spawn points used when the file names none: a line abreast at 3 km over the origin.
pub fn default_spawn_points() -> Vec<SpawnPoint> {
    ServerConfig::default().spawn_points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_file_says_its_cause_once() {
        // A directory where the file should be: reading it fails with the OS's reason.
        let dir = tempfile::tempdir().expect("tempdir");
        let e = load_or_create(dir.path()).expect_err("a directory is not a file");
        assert!(matches!(e, ConfigError::Read { .. }), "{e:?}");
        let cause = std::error::Error::source(&e)
            .expect("the I/O error")
            .to_string();
        let chain = format!("{:#}", anyhow::Error::new(e));
        assert_eq!(chain.matches(&cause).count(), 1, "{chain}");
        assert!(chain.starts_with("cannot read "), "{chain}");
    }

    #[test]
    fn the_default_file_parses_to_the_defaults() {
        let (cfg, unknown) = parse(Path::new("server.toml"), DEFAULT_FILE).expect("parses");
        assert!(unknown.is_empty());
        assert_eq!(cfg, FileConfig::default());
    }

    #[test]
    fn every_default_key_is_documented() {
        // Uncommenting every `# key = value` line must still parse to the defaults.
        let uncommented: String = DEFAULT_FILE
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest) if rest.contains(" = ") => rest.to_owned(),
                _ => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let (cfg, unknown) = parse(Path::new("server.toml"), &uncommented).expect("parses");
        assert!(unknown.is_empty(), "{unknown:?}");
        assert_eq!(cfg, FileConfig::default());
    }

    #[test]
    fn unknown_keys_warn_and_bad_values_fail_with_their_key() {
        let (_, unknown) = parse(
            Path::new("s.toml"),
            "[world]\ndraw_distance_km = 100.0\nbaseline_interval_ticks = 120\n",
        )
        .expect("parses");
        assert_eq!(unknown, vec!["world.baseline_interval_ticks"]);
        let err = parse(Path::new("s.toml"), "[world]\njitter_buffer_depth = 0\n")
            .expect_err("out of range")
            .to_string();
        assert!(
            err.contains("jitter_buffer_depth") && err.contains("s.toml"),
            "{err}"
        );
        let err = parse(Path::new("s.toml"), "[server]\nport = \"x\"\n")
            .expect_err("wrong type")
            .to_string();
        assert!(err.contains("port"), "{err}");
        let err = parse(Path::new("s.toml"), "[weather]\npresets = [\"fog\"]\n")
            .expect_err("unknown preset")
            .to_string();
        assert!(err.contains("fog"), "{err}");
    }

    fn parse_err(text: &str) -> String {
        match parse(Path::new("s.toml"), text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    /// `(section, key, lowest accepted, highest accepted, too low, too high)`.
    type Range = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
    );

    const RANGES: &[Range] = &[
        (
            "http",
            "admin_max_failures",
            "1",
            "1000",
            Some("0"),
            Some("1001"),
        ),
        (
            "http",
            "admin_lockout_s",
            "1.0",
            "86400.0",
            Some("0.5"),
            Some("86401.0"),
        ),
        (
            "http",
            "session_ttl_s",
            "60.0",
            "86400.0",
            Some("59.0"),
            Some("86401.0"),
        ),
        (
            "http",
            "max_connections",
            "1",
            "4096",
            Some("0"),
            Some("4097"),
        ),
        (
            "discovery",
            "beacon_interval_ms",
            "100",
            "60000",
            Some("0"),
            Some("60001"),
        ),
        (
            "discovery",
            "query_rate_per_address",
            "1",
            "100",
            Some("0"),
            Some("101"),
        ),
        (
            "discovery",
            "query_rate_global",
            "1",
            "10000",
            Some("0"),
            Some("10001"),
        ),
        (
            "world",
            "draw_distance_km",
            "1.0",
            "1000.0",
            Some("0.5"),
            Some("1000.5"),
        ),
        (
            "world",
            "jitter_buffer_depth",
            "1",
            "60",
            Some("0"),
            Some("61"),
        ),
        (
            "world",
            "jitter_buffer_adapt_window",
            "1.0",
            "3600.0",
            Some("0.5"),
            Some("3600.5"),
        ),
        (
            "world",
            "jitter_buffer_hysteresis",
            "0",
            "60",
            None,
            Some("61"),
        ),
        (
            "world",
            "jitter_buffer_jitter_multiplier",
            "0.0",
            "16.0",
            Some("-0.5"),
            Some("16.5"),
        ),
        (
            "world",
            "congestion_min_send_hz",
            "1.0",
            "60.0",
            Some("0.5"),
            Some("60.5"),
        ),
        (
            "world",
            "congestion_loss_threshold",
            "0.0",
            "1.0",
            Some("-0.5"),
            Some("1.5"),
        ),
        (
            "world",
            "congestion_queue_delay_ms",
            "5.0",
            "1000.0",
            Some("4.5"),
            Some("1000.5"),
        ),
        (
            "world",
            "congestion_budget_floor_bytes",
            "100",
            "65536",
            Some("99"),
            Some("65537"),
        ),
        ("world", "sim_worker_threads", "0", "256", None, Some("257")),
        ("world", "max_catchup_ticks", "0", "600", None, Some("601")),
        (
            "world",
            "entity_soft_cap",
            "1",
            "1000000",
            Some("0"),
            Some("1000001"),
        ),
        (
            "world",
            "respawn_delay_s",
            "0.0",
            "3600.0",
            Some("-0.5"),
            Some("3600.5"),
        ),
        (
            "network",
            "idle_timeout_s",
            "1.0",
            "600.0",
            Some("0.5"),
            Some("600.5"),
        ),
        (
            "network",
            "max_connections",
            "1",
            "10000",
            Some("0"),
            Some("10001"),
        ),
        (
            "shutdown",
            "warning_interval_s",
            "1",
            "86400",
            Some("0"),
            Some("86401"),
        ),
        (
            "admission",
            "connect_burst",
            "1",
            "1024",
            Some("0"),
            Some("1025"),
        ),
        (
            "admission",
            "connect_rate",
            "1",
            "1000",
            Some("0"),
            Some("1001"),
        ),
        (
            "admission",
            "connect_window_s",
            "1.0",
            "3600.0",
            Some("0.5"),
            Some("3600.5"),
        ),
        (
            "admission",
            "max_per_ip",
            "1",
            "1024",
            Some("0"),
            Some("1025"),
        ),
        (
            "admission",
            "admin_auth_max_failures",
            "1",
            "1000",
            Some("0"),
            Some("1001"),
        ),
        (
            "admission",
            "admin_auth_lockout_s",
            "1.0",
            "86400.0",
            Some("0.5"),
            Some("86400.5"),
        ),
        (
            "admission",
            "request_timeout_s",
            "1.0",
            "600.0",
            Some("0.5"),
            Some("600.5"),
        ),
        (
            "weather",
            "preset_minutes",
            "0.1",
            "10000.0",
            Some("0.05"),
            Some("10000.5"),
        ),
        (
            "weather",
            "time_scale",
            "0.0",
            "3600.0",
            Some("-0.5"),
            Some("3600.5"),
        ),
        (
            "chat",
            "rate_per_s",
            "0.1",
            "50.0",
            Some("0.05"),
            Some("50.5"),
        ),
        ("chat", "burst", "1", "100", Some("0"), Some("101")),
        ("match", "score_limit", "0", "10000", None, Some("10001")),
        (
            "match",
            "time_limit_s",
            "0.0",
            "86400.0",
            Some("-1.0"),
            Some("86401.0"),
        ),
        (
            "match",
            "warmup_s",
            "0.0",
            "3600.0",
            Some("-1.0"),
            Some("3601.0"),
        ),
        (
            "match",
            "post_match_s",
            "0.0",
            "3600.0",
            Some("-1.0"),
            Some("3601.0"),
        ),
        ("match", "max_per_team", "0", "1000", None, Some("1001")),
        (
            "match",
            "max_team_imbalance",
            "0",
            "1000",
            None,
            Some("1001"),
        ),
        (
            "match",
            "reconnect_grace_s",
            "0.0",
            "3600.0",
            Some("-1.0"),
            Some("3601.0"),
        ),
    ];

    #[test]
    fn every_setting_that_paces_a_loop_is_range_checked_naming_its_key() {
        for (section, key, lo, hi, bad_lo, bad_hi) in RANGES {
            for good in [lo, hi] {
                let text = format!("[{section}]\n{key} = {good}\n");
                if let Err(e) = parse(Path::new("s.toml"), &text) {
                    panic!("{section}.{key} = {good} refused: {e}");
                }
            }
            for bad in [bad_lo, bad_hi].into_iter().flatten() {
                let e = parse_err(&format!("[{section}]\n{key} = {bad}\n"));
                // Numbers read as they were written, without a trailing `.0`.
                let n = |v: &str| v.parse::<f64>().map_or(v.to_owned(), |v| v.to_string());
                let want = format!(
                    "s.toml: {section}.{key}: must be between {} and {}, got {}",
                    n(lo),
                    n(hi),
                    n(bad)
                );
                assert_eq!(e, want, "{section}.{key} = {bad}");
            }
        }
        // Non-finite floats are out of every range.
        let e = parse_err("[network]\nidle_timeout_s = nan\n");
        assert!(
            e.contains("network.idle_timeout_s: must be between 1 and 600, got NaN"),
            "{e}"
        );
        let e = parse_err("[weather]\npreset_minutes = inf\n");
        assert!(e.contains("weather.preset_minutes:"), "{e}");
    }

    #[test]
    fn a_zero_beacon_interval_is_refused() {
        let e = parse_err("[discovery]\nbeacon_enabled = true\nbeacon_interval_ms = 0\n");
        assert_eq!(
            e,
            "s.toml: discovery.beacon_interval_ms: must be between 100 and 60000, got 0"
        );
    }

    #[test]
    fn the_other_discovery_and_budget_settings_are_checked() {
        let e = parse_err("[discovery]\nbeacon_target = \"127.0.0.1:0\"\n");
        assert!(e.contains("discovery.beacon_target: "), "{e}");
        let e = parse_err("[discovery]\nbeacon_target = \"0.0.0.0:4780\"\n");
        assert!(e.contains("discovery.beacon_target: "), "{e}");
        parse(
            Path::new("s.toml"),
            "[discovery]\nbeacon_target = \"127.0.0.1:4780\"\nquery_port = 0\n",
        )
        .expect("loopback target");
        let e = parse_err("[discovery]\nquery_rate_per_address = 0\n");
        assert_eq!(
            e,
            "s.toml: discovery.query_rate_per_address: must be between 1 and 100, got 0"
        );
        let e = parse_err("[discovery]\nquery_rate_global = 10001\n");
        assert!(e.contains("discovery.query_rate_global:"), "{e}");
        let e = parse_err("[world]\nsnapshot_budget_bytes = 199\n");
        assert_eq!(
            e,
            "s.toml: world.snapshot_budget_bytes: must be 0 (unlimited) or between 200 and 65536, got 199"
        );
        let e = parse_err("[world]\nsnapshot_budget_bytes = 65537\n");
        assert!(e.contains("world.snapshot_budget_bytes:"), "{e}");
        let e = parse_err("[weather]\nstart_hour = 24.0\n");
        assert_eq!(
            e,
            "s.toml: weather.start_hour: must be at least 0 and below 24, got 24"
        );
        let e = parse_err("[world]\nai_aircraft = 11\nentity_soft_cap = 10\n");
        assert!(e.contains("world.ai_aircraft: "), "{e}");
    }

    #[test]
    fn an_operator_password_the_admin_token_cannot_carry_is_refused() {
        let max = fl_protocol::msg::admin::ADMIN_TOKEN_MAX_BYTES;
        assert_eq!(max, 29, "MsgAdminCommand.token is char[30]");
        let ok = "p".repeat(max);
        parse(
            Path::new("s.toml"),
            &format!("[server]\noperator_password = \"{ok}\"\n"),
        )
        .expect("29 bytes fit");
        let long = "p".repeat(max + 1);
        let e = parse_err(&format!("[server]\noperator_password = \"{long}\"\n"));
        assert_eq!(
            e,
            "s.toml: server.operator_password: is 30 bytes; the admin token field of MsgAdminCommand carries at most 29"
        );
        // Multi-byte characters count in bytes.
        let e = parse_err(&format!(
            "[server]\noperator_password = \"{}\"\n",
            "é".repeat(15)
        ));
        assert!(e.contains("server.operator_password: is 30 bytes"), "{e}");
        let e = parse_err("[server]\noperator_password = \"a\\u0000b\"\n");
        assert!(e.contains("server.operator_password: "), "{e}");
        // The join password travels in ConnectJoinPassword (at most 64 bytes).
        let e = parse_err(&format!("[server]\npassword = \"{}\"\n", "p".repeat(65)));
        assert!(e.contains("server.password: is 65 bytes"), "{e}");
    }

    #[test]
    fn env_overrides_the_file() {
        let mut cfg = FileConfig::default();
        cfg.apply_env(|k| match k {
            "FL_SERVER_BIND" => Some("127.0.0.1".into()),
            "FL_SERVER_PORT" => Some("5000".into()),
            _ => None,
        })
        .expect("valid");
        assert_eq!(
            (cfg.server.bind.as_str(), cfg.server.port),
            ("127.0.0.1", 5000)
        );
        assert!(
            cfg.apply_env(|k| (k == "FL_SERVER_PORT").then(|| "99999".into()))
                .is_err()
        );
    }

    #[test]
    fn a_missing_file_is_written_with_commented_defaults() {
        let dir = std::env::temp_dir().join(format!("fl-config-test-{}", std::process::id()));
        let path = dir.join("server.toml");
        let _ = std::fs::remove_dir_all(&dir);
        let loaded = load_or_create(&path).expect("created");
        assert!(loaded.created);
        assert_eq!(
            std::fs::read_to_string(&path).expect("written"),
            DEFAULT_FILE
        );
        let again = load_or_create(&path).expect("loaded");
        assert!(!again.created);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_file_maps_onto_the_library_config() {
        let (cfg, _) = parse(
            Path::new("s.toml"),
            "[world]\nsnapshot_budget_bytes = 0\nsim_worker_threads = 2\n[admission]\nbans = [\"10.0.0.1\"]\n[server]\npassword = \"pw\"\n",
        )
        .expect("parses");
        let s = cfg.server_config();
        assert_eq!(s.snapshot.budget_bytes, 0);
        assert_eq!(s.world.sim_workers, 2);
        assert_eq!(s.admission.password.as_deref(), Some("pw"));
        assert!(
            s.admission
                .bans
                .contains(&"10.0.0.1".parse::<IpAddr>().expect("ip"))
        );
    }

    #[test]
    fn the_chat_and_match_sections_map_onto_the_social_config() {
        let (cfg, _) = parse(Path::new("s.toml"), "").expect("parses");
        let social = cfg.server_config().social;
        assert_eq!(social.rules, None, "no [match]: the sandbox");
        assert_eq!(social.reconnect_grace_ticks, 3600);
        let (cfg, unknown) = parse(
            Path::new("s.toml"),
            "[chat]\nrate_per_s = 2.0\nburst = 3\nblocked_words = [\"darn\"]\n\
             [match]\nmode = \"team_deathmatch\"\nscore_limit = 5\ntime_limit_s = 60.0\n\
             warmup_s = 0.0\npost_match_s = 1.0\nmax_per_team = 4\nmax_team_imbalance = 2\n\
             reconnect_grace_s = 0.0\n",
        )
        .expect("parses");
        assert!(unknown.is_empty(), "{unknown:?}");
        let social = cfg.server_config().social;
        assert_eq!(social.chat.burst, 3);
        assert_eq!(social.chat.blocked_words, vec!["darn".to_owned()]);
        assert_eq!(
            social.rules,
            Some(crate::social::MatchRules {
                score_limit: 5,
                time_limit_ticks: 3600,
                warmup_ticks: 0,
                post_match_ticks: 60,
            })
        );
        assert_eq!((social.max_per_team, social.max_team_imbalance), (4, 2));
        assert_eq!(social.reconnect_grace_ticks, 0);
        let e = parse_err("[match]\nmode = \"ctf\"\n");
        assert!(e.contains("match.mode"), "{e}");
        let e = parse_err("[chat]\nblocked_words = [\"two words\"]\n");
        assert!(e.contains("chat.blocked_words"), "{e}");
        let e = parse_err("[chat]\nblocked_words = [\"\"]\n");
        assert!(e.contains("chat.blocked_words"), "{e}");
    }

    #[test]
    fn the_mission_section_names_its_missions_and_refuses_bad_values() {
        use crate::mission_director::OnEnd;
        let (cfg, unknown) = parse(
            Path::new("s.toml"),
            "[mission]\nrotation = [\"p:a\", \"p:b\"]\non_end = \"rotate\"\nend_delay_s = 2.5\n",
        )
        .expect("parses");
        assert!(unknown.is_empty(), "{unknown:?}");
        assert_eq!(cfg.mission.missions(), vec!["p:a", "p:b"]);
        assert_eq!(cfg.mission.on_end(), OnEnd::Rotate);
        assert_eq!(cfg.mission.end_delay_ticks(), 150);
        let (cfg, _) = parse(Path::new("s.toml"), "[mission]\nfile = \"p:a\"\n").expect("parses");
        assert_eq!(cfg.mission.missions(), vec!["p:a"]);
        assert_eq!(cfg.mission.on_end(), OnEnd::Restart);
        assert!(FileConfig::default().mission.missions().is_empty());
        for (text, key) in [
            ("[mission]\non_end = \"again\"\n", "mission.on_end"),
            ("[mission]\nend_delay_s = -1.0\n", "mission.end_delay_s"),
            (
                "[mission]\nfile = \"p:a\"\nrotation = [\"p:b\"]\n",
                "mission.rotation",
            ),
            ("[mission]\nfile = \"no-colon\"\n", "mission.file"),
            ("[mission]\nrotation = [\"p:\"]\n", "mission.rotation"),
        ] {
            let err = parse_err(text);
            assert!(err.contains(key), "{text}: {err}");
        }
    }
}
