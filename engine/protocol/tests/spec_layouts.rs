//! Table-driven layout check: every fixed-size wire struct's size and every field's offset and
//! size, against the tables of `spec/network-protocol.txt` (and, for the messages the spec only
//! sizes, the layouts we took from the public C++ original's headers).
//!
//! The tables below are transcribed by hand from the documents, not derived from the code. Three
//! comparisons run:
//!
//! 1. each transcribed table tiles its declared size exactly (catches a typo in the transcription);
//! 2. when the spec file is readable, its tables are parsed and must equal the transcription
//!    (catches a typo in either); the spec's MsgId table is compared with `MsgId::info()` too;
//! 3. the transcription must equal each type's `Fixed::NAME`, `SIZE` and `LAYOUT` (the real
//!    test). Messages without a `Fixed` header (`MsgMotd`, chat) are probed through their bytes.
//!
//! The spec file is found by the workspace's one locator, `fl-fixtures` (`$FL_SHARED_DIR`, else
//! `<workspace>/../shared`, else `/work/shared`). Without it comparison 2 is recorded as an
//! `FL-SKIP` ("checked the transcription only"), or fails under `FL_REQUIRE_FIXTURES=1`.

use fl_protocol::ids::{Direction, Lane, MsgId};
use fl_protocol::layout::{Fixed, LayoutEntry};
use fl_protocol::msg::admin::{AdminCommand, AdminResponse, AdminResponseChunk};
use fl_protocol::msg::combat::{
    CombatEvent, CombatEventRecord, Datalink, DatalinkThreat, DatalinkTrack, GmEntityRecord,
    GmWorldState, WingmanAck, WingmanCommand,
};
use fl_protocol::msg::crew::{CrewRoster, CrewRosterSeat, SeatRequest, SeatResult};
use fl_protocol::msg::discovery::{BUILD_VERSION_BYTES, LanBeacon, ServerInfo, ServerQuery};
use fl_protocol::msg::handshake::{
    ConnectAck, ConnectRefusal, ConnectRequest, EntityTypeDef, Hello, Motd, PackManifestEntry,
};
use fl_protocol::msg::social::{
    Chat, ChatEvent, MatchState, MatchTeamScore, PlayerRoster, PlayerRosterEntry, RadioCommand,
    RadioTransmission, Scoreboard, ScoreboardRow, TeamRequest,
};
use fl_protocol::msg::voice::{VoiceFrame, VoiceNetDef, VoiceNetRecord, VoiceRelay};
use fl_protocol::msg::world::{
    AlertLevelChange, ClientInput, FactionDefRecord, Haptic, Heartbeat, MissionOutcome,
    MissionRosterRecord, MusicState, PeerDelay, ServerNotice, WeatherState,
};
use fl_protocol::snapshot::SnapshotHeader;
use fl_protocol::{FixedStr, Message, Packet};

/// One row of a spec table: offset, size, field name exactly as the document spells it
/// (array suffixes such as `[64]` included).
type Row = (usize, usize, &'static str);

/// A transcribed table.
#[derive(Debug)]
struct Table {
    name: &'static str,
    size: usize,
    rows: &'static [Row],
}

const fn t(name: &'static str, size: usize, rows: &'static [Row]) -> Table {
    Table { name, size, rows }
}

// ---------------------------------------------------------------------------------------------
// Transcription of spec/network-protocol.txt, in document order.
// ---------------------------------------------------------------------------------------------

const SPEC: &[Table] = &[
    t(
        "MsgHello",
        4,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "protocolVersion"),
        ],
    ),
    t(
        "MsgConnectRequest",
        104,
        &[
            (0, 1, "msgId"),
            (1, 1, "requestedRole"),
            (2, 2, "protocolVersion"),
            (4, 2, "packCount"),
            (6, 2, "reserved"),
            (8, 64, "requestedEntityType[64]"),
            (72, 32, "callsign[32]"),
        ],
    ),
    t(
        "PackManifestEntry",
        128,
        &[
            (0, 64, "id[64]"),
            (64, 32, "version[32]"),
            (96, 32, "contentHash[32]"),
        ],
    ),
    t(
        "MsgConnectAck",
        24,
        &[
            (0, 1, "msgId"),
            (1, 1, "tickRateHz"),
            (2, 2, "typeCount"),
            (4, 4, "assignedEntityIdx"),
            (8, 4, "assignedEntityGen"),
            (12, 4, "planetRadiusKm"),
            (16, 1, "grantedRole"),
            (17, 3, "reserved2[3]"),
            (20, 4, "peerId"),
        ],
    ),
    t(
        "MsgEntityTypeDef",
        380,
        &[
            (0, 4, "typeIndex"),
            (4, 64, "id[64]"),
            (68, 64, "mesh[64]"),
            (132, 64, "dmgMesh[64]"),
            (196, 64, "flightModel[64]"),
            (260, 4, "payloadMassKg"),
            (264, 4, "payloadCd0"),
            (268, 64, "name[64]"),
            (332, 1, "category"),
            (333, 1, "projectileKind"),
            (334, 2, "reservedCat[2]"),
            (336, 4, "deckLengthM"),
            (340, 4, "deckWidthM"),
            (344, 4, "deckHeightM"),
            (348, 32, "meshVariant[32]"),
        ],
    ),
    t(
        "MsgFactionDef",
        132,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "factionIndex"),
            (4, 64, "id[64]"),
            (68, 64, "name[64]"),
        ],
    ),
    t(
        "MsgAlertLevelChange",
        4,
        &[(0, 1, "msgId"), (1, 1, "level"), (2, 2, "factionIndex")],
    ),
    t(
        "MsgMissionRoster",
        72,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "entityGen"),
            (4, 4, "entityIdx"),
            (8, 64, "objectId[64]"),
        ],
    ),
    t(
        "MsgDatalink",
        40,
        &[
            (0, 1, "msgId"),
            (1, 1, "flags"),
            (2, 2, "trackCount"),
            (4, 2, "threatCount"),
            (6, 2, "reserved"),
            (8, 8, "tickIndex"),
            (16, 24, "origin[3]"),
        ],
    ),
    t(
        "DatalinkTrack",
        40,
        &[
            (0, 4, "targetIdx"),
            (4, 4, "typeIndex"),
            (8, 2, "targetGen"),
            (10, 2, "factionIndex"),
            (12, 1, "state"),
            (13, 1, "ident"),
            (14, 1, "sensorTypeMask"),
            (15, 1, "flags"),
            (16, 12, "relPos[3]"),
            (28, 12, "relVel[3]"),
        ],
    ),
    t(
        "DatalinkThreat",
        28,
        &[
            (0, 4, "emitterIdx"),
            (4, 4, "emitterTypeIndex"),
            (8, 2, "emitterGen"),
            (10, 2, "emitterFactionIndex"),
            (12, 1, "channel"),
            (13, 1, "level"),
            (14, 1, "ident"),
            (15, 1, "flags"),
            (16, 12, "relPos[3]"),
        ],
    ),
    t(
        "MsgCrewRoster",
        12,
        &[
            (0, 1, "msgId"),
            (1, 1, "seatCount"),
            (2, 1, "turretCount"),
            (3, 1, "reserved"),
            (4, 4, "entityIdx"),
            (8, 4, "entityGen"),
        ],
    ),
    t(
        "CrewRosterSeat",
        44,
        &[
            (0, 1, "seatIndex"),
            (1, 1, "occupancy"),
            (2, 2, "capabilities"),
            (4, 4, "occupantPeerId"),
            (8, 1, "skillPct"),
            (9, 1, "turretIndex"),
            (10, 1, "knockedOut"),
            (11, 1, "reserved"),
            (12, 32, "role"),
        ],
    ),
    t(
        "MsgSeatRequest",
        12,
        &[
            (0, 1, "msgId"),
            (1, 1, "flags"),
            (2, 1, "seatIndex"),
            (3, 1, "reserved"),
            (4, 4, "entityIdx"),
            (8, 4, "entityGen"),
        ],
    ),
    t(
        "MsgSeatResult",
        12,
        &[
            (0, 1, "msgId"),
            (1, 1, "code"),
            (2, 1, "seatIndex"),
            (3, 1, "reserved"),
            (4, 4, "entityIdx"),
            (8, 4, "entityGen"),
        ],
    ),
    t(
        "MsgWorldSnapshotHeader",
        24,
        &[
            (0, 1, "msgId"),
            (1, 1, "protocolVersion"),
            (2, 2, "recordCount"),
            (4, 4, "bitstreamBytes"),
            (8, 8, "tickIndex"),
            (16, 2, "originCount"),
            (18, 2, "flags"),
            (20, 4, "uncompressedBytes"),
        ],
    ),
    t(
        "MsgClientInput",
        80,
        &[
            (0, 1, "msgId"),
            (1, 1, "buttons"),
            (2, 2, "protocolVersion"),
            (4, 4, "seqNum"),
            (8, 8, "tickIndex"),
            (16, 4, "throttle"),
            (20, 4, "elevator"),
            (24, 4, "aileron"),
            (28, 4, "rudder"),
            (32, 12, "viewAxis[3]"),
            (44, 4, "ackMask"),
            (48, 1, "selectedStation"),
            (49, 1, "radarMode"),
            (50, 1, "flaps"),
            (51, 1, "speedbrake"),
            (52, 1, "artButtons"),
            (53, 3, "reservedC[3]"),
            (56, 24, "cameraEye[3]"),
        ],
    ),
    t(
        "MsgWeatherState",
        32,
        &[
            (0, 1, "msgId"),
            (1, 1, "preset"),
            (2, 2, "timeOfDayTenths"),
            (4, 4, "fogDensity"),
            (8, 4, "fogStartDist"),
            (12, 4, "windX"),
            (16, 4, "windZ"),
            (20, 4, "turbulenceAmp"),
            (24, 8, "utcJulianDay"),
        ],
    ),
    t(
        "MsgServerNotice",
        64,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "secondsRemaining"),
            (4, 60, "text"),
        ],
    ),
    t(
        "MsgAdminCommand",
        128,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "reqId"),
            (4, 30, "token"),
            (34, 94, "command"),
        ],
    ),
    t(
        "MsgAdminResponse",
        128,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "reqId"),
            (4, 124, "text"),
        ],
    ),
    t(
        "MsgAdminResponseChunk",
        512,
        &[
            (0, 1, "msgId"),
            (1, 1, "flags"),
            (2, 2, "reqId"),
            (4, 2, "seqNum"),
            (6, 506, "body"),
        ],
    ),
    // The spec's MOTD table ends with a variable `text` row (size "≤ 65535"); only the fixed
    // 4-byte header is tabled here (and in the parser, which stops at the non-numeric size).
    t(
        "MsgMotd",
        4,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "displaySeconds"),
        ],
    ),
    t(
        "MsgConnectRefusal",
        64,
        &[(0, 1, "msgId"), (1, 1, "code"), (2, 62, "reason")],
    ),
    t(
        "MsgHeartbeat",
        16,
        &[
            (0, 1, "msgId"),
            (1, 3, "reserved[3]"),
            (4, 4, "ackMask"),
            (8, 8, "tickIndex"),
        ],
    ),
    t(
        "MsgPeerDelay",
        4,
        &[(0, 1, "msgId"), (1, 1, "reserved"), (2, 2, "delayTicks")],
    ),
    t(
        "MsgWingmanCommand",
        16,
        &[
            (0, 1, "msgId"),
            (1, 1, "command"),
            (2, 2, "protocolVersion"),
            (4, 4, "memberIdx"),
            (8, 4, "seqNum"),
            (12, 2, "flightId"),
            (14, 1, "flags"),
            (15, 1, "reserved"),
        ],
    ),
    t(
        "MsgWingmanAck",
        16,
        &[
            (0, 1, "msgId"),
            (1, 1, "command"),
            (2, 1, "result"),
            (3, 1, "flightSize"),
            (4, 4, "memberIdx"),
            (8, 4, "targetIdx"),
            (12, 2, "flightId"),
            (14, 2, "reserved"),
        ],
    ),
    t(
        "MsgCombatEvent",
        4,
        &[(0, 1, "msgId"), (1, 1, "count"), (2, 2, "reserved")],
    ),
    t(
        "CombatEventRecord",
        32,
        &[
            (0, 1, "type"),
            (1, 1, "weaponClass"),
            (2, 2, "reserved"),
            (4, 4, "subjectIdx"),
            (8, 2, "subjectGen"),
            (10, 2, "pad0"),
            (12, 4, "instigatorIdx"),
            (16, 2, "instigatorGen"),
            (18, 2, "pad1"),
            (20, 4, "a"),
            (24, 4, "b"),
            (28, 4, "c"),
        ],
    ),
    t(
        "MsgLanBeacon",
        102,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "protocolVersion"),
            (4, 2, "gamePort"),
            (6, 1, "playerCount"),
            (7, 1, "maxPlayers"),
            (8, 1, "gameModeFlags"),
            (9, 1, "reserved2"),
            (10, 2, "shutdownSeconds"),
            (12, 2, "queryPort"),
            (14, 64, "name[64]"),
            (78, 24, "build[24]"),
        ],
    ),
    t(
        "MsgVoiceNetDef",
        4,
        &[
            (0, 1, "msgId"),
            (1, 1, "netCount"),
            (2, 1, "flags"),
            (3, 1, "reserved"),
        ],
    ),
    t(
        "MsgVoiceNetRecord",
        68,
        &[
            (0, 1, "netId"),
            (1, 1, "kind"),
            (2, 1, "flags"),
            (3, 1, "reserved"),
            (4, 4, "rangeM"),
            (8, 4, "gain"),
            (12, 24, "id[24]"),
            (36, 32, "name[32]"),
        ],
    ),
    t(
        "MsgVoiceFrame",
        8,
        &[
            (0, 1, "msgId"),
            (1, 1, "netId"),
            (2, 2, "seq"),
            (4, 2, "payloadBytes"),
            (6, 1, "flags"),
            (7, 1, "reserved"),
        ],
    ),
    t(
        "MsgVoiceRelay",
        16,
        &[
            (0, 1, "msgId"),
            (1, 1, "netId"),
            (2, 2, "seq"),
            (4, 4, "senderPeerId"),
            (8, 4, "senderEntityIdx"),
            (12, 2, "payloadBytes"),
            (14, 1, "flags"),
            (15, 1, "reserved"),
        ],
    ),
];

// ---------------------------------------------------------------------------------------------
// Layouts the spec only sizes: transcribed from the research notes on the public C++ original's
// GameProtocol.h (static_asserts on sizeof/offsetof). Not checked against the spec file.
// ---------------------------------------------------------------------------------------------

const CPP: &[Table] = &[
    t(
        "MsgMusicState",
        4,
        &[(0, 1, "msgId"), (1, 1, "state"), (2, 2, "reserved")],
    ),
    t(
        "MsgHaptic",
        12,
        &[
            (0, 1, "msgId"),
            (1, 1, "kind"),
            (2, 2, "durationMs"),
            (4, 4, "a"),
            (8, 4, "b"),
        ],
    ),
    t(
        "MsgMissionOutcome",
        8,
        &[
            (0, 1, "msgId"),
            (1, 1, "outcome"),
            (2, 2, "triggersFired"),
            (4, 4, "elapsedSeconds"),
        ],
    ),
    t(
        "MsgRadioCommand",
        64,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "reqId"),
            (4, 60, "command"),
        ],
    ),
    t(
        "MsgRadioTransmission",
        224,
        &[
            (0, 1, "msgId"),
            (1, 1, "netId"),
            (2, 2, "displaySeconds"),
            (4, 28, "speaker"),
            (32, 32, "voiceKey"),
            (64, 160, "text"),
        ],
    ),
    t(
        "MsgPlayerRosterHeader",
        4,
        &[(0, 1, "msgId"), (1, 1, "count"), (2, 2, "reserved")],
    ),
    t(
        "PlayerRosterEntry",
        40,
        &[
            (0, 4, "participantId"),
            (4, 2, "factionIndex"),
            (6, 1, "role"),
            (7, 1, "flags"),
            (8, 32, "callsign"),
        ],
    ),
    t(
        "MsgMatchState",
        80,
        &[
            (0, 1, "msgId"),
            (1, 1, "phase"),
            (2, 2, "scoreLimit"),
            (4, 1, "teamCount"),
            (5, 3, "reserved"),
            (8, 8, "phaseEndTick"),
            (16, 32, "modeId"),
            (48, 32, "modeName"),
        ],
    ),
    t(
        "MatchTeamScore",
        8,
        &[(0, 2, "factionIndex"), (2, 2, "reserved"), (4, 4, "score")],
    ),
    t(
        "MsgScoreboardHeader",
        8,
        &[
            (0, 1, "msgId"),
            (1, 1, "count"),
            (2, 2, "reserved"),
            (4, 4, "reserved2"),
        ],
    ),
    t(
        "ScoreboardRow",
        16,
        &[
            (0, 4, "participantId"),
            (4, 4, "score"),
            (8, 2, "kills"),
            (10, 2, "deaths"),
            (12, 2, "pingMs"),
            (14, 2, "factionIndex"),
        ],
    ),
    t(
        "MsgTeamRequest",
        4,
        &[(0, 1, "msgId"), (1, 1, "reserved"), (2, 2, "factionIndex")],
    ),
    t(
        "MsgGmWorldStateHeader",
        16,
        &[
            (0, 1, "msgId"),
            (1, 1, "flags"),
            (2, 2, "count"),
            (4, 4, "reserved"),
            (8, 8, "tick"),
        ],
    ),
    t(
        "GmEntityRecord",
        44,
        &[
            (0, 4, "entityIdx"),
            (4, 2, "gen"),
            (6, 2, "factionIndex"),
            (8, 4, "typeIndex"),
            (12, 4, "ownerPeerId"),
            (16, 2, "formationId"),
            (18, 1, "category"),
            (19, 1, "damageLevel"),
            (20, 1, "flags"),
            (21, 1, "hpPct"),
            (22, 2, "reserved"),
            (24, 12, "pos"),
            (36, 8, "velXZ"),
        ],
    ),
    t(
        "MsgServerQuery",
        208,
        &[
            (0, 1, "msgId"),
            (1, 1, "reserved"),
            (2, 2, "protocolVersion"),
            (4, 4, "nonce"),
            (8, 8, "clientTimeMs"),
            (16, 192, "pad"),
        ],
    ),
    t(
        "MsgServerInfo",
        208,
        &[
            (0, 1, "msgId"),
            (1, 1, "gameModeFlags"),
            (2, 2, "protocolVersion"),
            (4, 4, "nonce"),
            (8, 8, "clientTimeMs"),
            (16, 2, "gamePort"),
            (18, 2, "shutdownSeconds"),
            (20, 1, "playerCount"),
            (21, 1, "maxPlayers"),
            (22, 2, "reserved"),
            (24, 64, "name"),
            (88, 32, "modeId"),
            (120, 64, "mission"),
            (184, 24, "build"),
        ],
    ),
    // Headers without a `Fixed` type in the crate: probed through encoded bytes below.
    t(
        "MsgChatHeader",
        4,
        &[(0, 1, "msgId"), (1, 1, "channel"), (2, 2, "reserved")],
    ),
    t(
        "MsgChatEventHeader",
        8,
        &[
            (0, 1, "msgId"),
            (1, 1, "channel"),
            (2, 2, "reserved"),
            (4, 4, "senderPeerId"),
        ],
    ),
];

/// The spec's MsgId table: name, value, direction, lane (transcribed by hand).
const MSG_IDS: &[(&str, u8, Direction, Lane)] = {
    use Direction::{ClientToServer as C2S, ServerToClient as S2C};
    use Lane::{RawUdp, Reliable, Unreliable, Voice};
    &[
        ("Hello", 0x00, S2C, Reliable),
        ("ConnectRequest", 0x11, C2S, Reliable),
        ("ConnectAck", 0x01, S2C, Reliable),
        ("WorldSnapshot", 0x02, S2C, Unreliable),
        ("ClientInput", 0x03, C2S, Unreliable),
        ("WeatherState", 0x04, S2C, Unreliable),
        ("ServerNotice", 0x05, S2C, Reliable),
        ("AdminCommand", 0x06, C2S, Reliable),
        ("AdminResponse", 0x07, S2C, Reliable),
        ("AdminResponseChunk", 0x0A, S2C, Reliable),
        ("Motd", 0x08, S2C, Reliable),
        ("ConnectRefusal", 0x09, S2C, Reliable),
        ("Heartbeat", 0x0B, C2S, Unreliable),
        ("PeerDelay", 0x0C, S2C, Unreliable),
        ("WingmanCommand", 0x0D, C2S, Reliable),
        ("WingmanAck", 0x0E, S2C, Reliable),
        ("CombatEvent", 0x0F, S2C, Reliable),
        ("FactionDef", 0x10, S2C, Reliable),
        ("Datalink", 0x12, S2C, Unreliable),
        ("CrewRoster", 0x13, S2C, Reliable),
        ("SeatRequest", 0x14, C2S, Reliable),
        ("SeatResult", 0x15, S2C, Reliable),
        ("MusicState", 0x16, S2C, Reliable),
        ("Haptic", 0x17, S2C, Reliable),
        ("MissionOutcome", 0x18, S2C, Reliable),
        ("RadioCommand", 0x19, C2S, Reliable),
        ("RadioTransmission", 0x1A, S2C, Reliable),
        ("MissionRoster", 0x1B, S2C, Reliable),
        ("PlayerRoster", 0x1C, S2C, Reliable),
        ("MatchState", 0x1D, S2C, Reliable),
        ("Scoreboard", 0x1E, S2C, Unreliable),
        ("TeamRequest", 0x1F, C2S, Reliable),
        ("AlertLevelChange", 0x26, S2C, Reliable),
        ("GmWorldState", 0x22, S2C, Reliable),
        ("VoiceNetDef", 0x23, S2C, Reliable),
        ("VoiceFrame", 0x24, C2S, Voice),
        ("VoiceRelay", 0x25, S2C, Voice),
        ("Chat", 0x20, C2S, Reliable),
        ("ChatEvent", 0x21, S2C, Reliable),
        ("LanBeacon", 0x40, S2C, RawUdp),
        ("ServerQuery", 0x41, C2S, RawUdp),
        ("ServerInfo", 0x42, S2C, RawUdp),
    ]
};

// ---------------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------------

/// A field name without the document's array suffix (`id[64]` → `id`): the layout names.
fn base_name(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

fn table(name: &str) -> &'static Table {
    SPEC.iter()
        .chain(CPP)
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no transcribed table named {name}"))
}

/// The code's view of one struct.
struct CodeLayout {
    name: &'static str,
    size: usize,
    layout: &'static [LayoutEntry],
}

fn code<T: Fixed>() -> CodeLayout {
    CodeLayout {
        name: T::NAME,
        size: T::SIZE,
        layout: T::LAYOUT,
    }
}

/// Compares a transcribed table (optionally only its rows below `limit`) with a type's layout.
fn compare(table: &Table, code: &CodeLayout, limit: usize, problems: &mut Vec<String>) {
    if code.name != table.name {
        problems.push(format!("{}: Fixed::NAME is {}", table.name, code.name));
    }
    let size = table.size.min(limit);
    if code.size != size {
        problems.push(format!(
            "{}: size {} in the code, {} in the spec",
            table.name, code.size, size
        ));
    }
    let expected: Vec<(usize, usize, &str)> = table
        .rows
        .iter()
        .filter(|r| r.0 < limit)
        .map(|&(o, s, n)| (o, s, base_name(n)))
        .collect();
    let actual: Vec<(usize, usize, &str)> = code
        .layout
        .iter()
        .map(|e| (e.offset, e.size, e.name))
        .collect();
    let n = expected.len().max(actual.len());
    for i in 0..n {
        match (expected.get(i), actual.get(i)) {
            (Some(e), Some(a)) if e == a => {}
            (e, a) => problems.push(format!(
                "{} row {i}: spec {:?}, code {:?}",
                table.name, e, a
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 1. The transcription is self-consistent.
// ---------------------------------------------------------------------------------------------

#[test]
fn every_transcribed_table_tiles_its_size() {
    let mut names = std::collections::HashSet::new();
    for table in SPEC.iter().chain(CPP) {
        assert!(names.insert(table.name), "{} transcribed twice", table.name);
        let mut next = 0;
        for &(offset, size, name) in table.rows {
            assert_eq!(offset, next, "{}.{name}: gap or overlap", table.name);
            assert!(size > 0, "{}.{name}: empty field", table.name);
            next = offset + size;
        }
        assert_eq!(
            next, table.size,
            "{}: rows do not add up to the size",
            table.name
        );
    }
    assert_eq!(SPEC.len(), 35, "the spec has 35 offset tables");
}

// ---------------------------------------------------------------------------------------------
// 2. The transcription equals the spec file.
// ---------------------------------------------------------------------------------------------

/// The spec file's text through the workspace's one locator (`fl-fixtures`): without it the
/// test records an `FL-SKIP` saying it checked the transcription only (a failure under
/// `FL_REQUIRE_FIXTURES=1`).
fn spec_text() -> Option<String> {
    let path =
        fl_fixtures::reference_or(fl_fixtures::PROTOCOL_SPEC, "checked the transcription only")?;
    Some(std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// A table parsed from the spec file.
#[derive(Debug)]
struct ParsedTable {
    name: String,
    /// The size the heading states, if it states one.
    declared: Option<usize>,
    rows: Vec<(usize, usize, String)>,
}

/// The struct a line names, if it is a table heading: `MsgX — N bytes …` (a section heading)
/// or a record label such as `DatalinkTrack (40 bytes, …):`, `Then seatCount × CrewRosterSeat
/// (44 bytes each, …):`, `CombatEventRecord (each):`, `Each MsgVoiceNetRecord (68 bytes, …):`.
fn heading(line: &str) -> Option<(String, Option<usize>)> {
    let first_number = |s: &str| -> Option<usize> {
        let digits: String = s
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(|c| c.is_ascii_digit())
            .collect();
        digits.parse().ok()
    };
    let is_ident = |s: &str| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some((name, rest)) = line.split_once(" — ")
        && is_ident(name)
    {
        let sized = rest.contains("bytes");
        return Some((
            name.to_owned(),
            if sized { first_number(rest) } else { None },
        ));
    }
    let label = line
        .strip_prefix("Each ")
        .or_else(|| {
            line.strip_prefix("Then ")
                .and_then(|l| l.split_once(" × ").map(|p| p.1))
        })
        .unwrap_or(line);
    if let Some((name, rest)) = label.split_once(" (")
        && is_ident(name)
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && (rest.starts_with("each)")
            || rest.split(' ').nth(1) == Some("bytes")
            || rest.split(' ').nth(1) == Some("bytes,"))
    {
        return Some((name.to_owned(), first_number(rest)));
    }
    None
}

fn parse_spec_tables(text: &str) -> Vec<ParsedTable> {
    let mut out = Vec::new();
    let mut current: Option<(String, Option<usize>)> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(h) = heading(line) {
            current = Some(h);
            continue;
        }
        if !line.starts_with("Offset\tSize\tField\tType") {
            continue;
        }
        let (name, declared) = current
            .clone()
            .unwrap_or_else(|| panic!("an offset table with no heading before it"));
        let mut rows = Vec::new();
        while let Some(row) = lines.peek() {
            let cols: Vec<&str> = row.split('\t').collect();
            let parsed = match cols.as_slice() {
                [o, s, f, ..] => match (o.parse::<usize>(), s.parse::<usize>()) {
                    (Ok(o), Ok(s)) => Some((o, s, (*f).to_owned())),
                    _ => None,
                },
                _ => None,
            };
            match parsed {
                Some(r) => {
                    rows.push(r);
                    lines.next();
                }
                None => break,
            }
        }
        out.push(ParsedTable {
            name,
            declared,
            rows,
        });
    }
    out
}

/// The spec's MsgId table rows: (name, value, direction text, channel text).
fn parse_msg_id_table(text: &str) -> Vec<(String, u8, String, String)> {
    let mut out = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("MsgId\tValue\tDirection\tChannel\tSize") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let value = cols
            .get(1)
            .and_then(|v| v.strip_prefix("0x"))
            .and_then(|v| u8::from_str_radix(v, 16).ok());
        match (cols.as_slice(), value) {
            ([name, _, dir, chan, ..], Some(v)) => {
                out.push(((*name).to_owned(), v, (*dir).to_owned(), (*chan).to_owned()))
            }
            _ if line.trim().is_empty() => {}
            _ => break,
        }
    }
    out
}

#[test]
fn transcription_equals_the_spec_file() {
    let Some(text) = spec_text() else { return };
    let parsed = parse_spec_tables(&text);
    let mut problems = Vec::new();
    let parsed_names: Vec<&str> = parsed.iter().map(|p| p.name.as_str()).collect();
    let spec_names: Vec<&str> = SPEC.iter().map(|t| t.name).collect();
    if parsed_names != spec_names {
        problems.push(format!(
            "tables in the file {parsed_names:?}\n  transcribed {spec_names:?}"
        ));
    }
    for p in &parsed {
        let Some(t) = SPEC.iter().find(|t| t.name == p.name) else {
            continue;
        };
        if let Some(declared) = p.declared
            && declared != t.size
        {
            problems.push(format!(
                "{}: the heading says {declared} bytes, transcribed {}",
                t.name, t.size
            ));
        }
        let file_rows: Vec<(usize, usize, &str)> = p
            .rows
            .iter()
            .map(|(o, s, f)| (*o, *s, f.as_str()))
            .collect();
        if file_rows.as_slice() != t.rows {
            problems.push(format!(
                "{}:\n  file        {file_rows:?}\n  transcribed {:?}",
                t.name, t.rows
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn msg_id_table_equals_the_spec_file_and_the_code() {
    // Transcription against the code.
    assert_eq!(
        MSG_IDS.len(),
        MsgId::ALL.len(),
        "every MsgId is in the spec's table"
    );
    for &(name, value, direction, lane) in MSG_IDS {
        let id = MsgId::from_name(name).unwrap_or_else(|| panic!("no MsgId named {name}"));
        let info = id.info();
        assert_eq!(id.to_u8(), value, "{name}");
        assert_eq!(info.direction, direction, "{name}");
        assert_eq!(info.lane, lane, "{name}");
    }
    // Transcription against the file.
    let Some(text) = spec_text() else { return };
    let rows = parse_msg_id_table(&text);
    assert_eq!(rows.len(), MSG_IDS.len(), "rows of the spec's MsgId table");
    for ((name, value, dir, chan), &(t_name, t_value, t_dir, t_lane)) in rows.iter().zip(MSG_IDS) {
        assert_eq!((name.as_str(), *value), (t_name, t_value));
        let direction = match dir.as_str() {
            "server→client" => Direction::ServerToClient,
            "client→server" => Direction::ClientToServer,
            other => panic!("{name}: direction {other:?}"),
        };
        let lane = if chan.starts_with("raw UDP") {
            Lane::RawUdp
        } else if chan.contains("voice") {
            Lane::Voice
        } else if chan == "reliable" {
            Lane::Reliable
        } else if chan == "unreliable" {
            Lane::Unreliable
        } else {
            panic!("{name}: channel {chan:?}")
        };
        assert_eq!((direction, lane), (t_dir, t_lane), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// 3. The code equals the transcription.
// ---------------------------------------------------------------------------------------------

/// Every transcribed table that maps onto one `Fixed` type, whole.
fn fixed_types() -> Vec<CodeLayout> {
    vec![
        code::<Hello>(),
        code::<ConnectRequest>(),
        code::<PackManifestEntry>(),
        code::<ConnectAck>(),
        code::<EntityTypeDef>(),
        code::<FactionDefRecord>(),
        code::<AlertLevelChange>(),
        code::<MissionRosterRecord>(),
        code::<Datalink>(),
        code::<DatalinkTrack>(),
        code::<DatalinkThreat>(),
        code::<CrewRoster>(),
        code::<CrewRosterSeat>(),
        code::<SeatRequest>(),
        code::<SeatResult>(),
        code::<SnapshotHeader>(),
        code::<ClientInput>(),
        code::<WeatherState>(),
        code::<ServerNotice>(),
        code::<AdminCommand>(),
        code::<AdminResponse>(),
        code::<AdminResponseChunk>(),
        code::<ConnectRefusal>(),
        code::<Heartbeat>(),
        code::<PeerDelay>(),
        code::<WingmanCommand>(),
        code::<WingmanAck>(),
        code::<CombatEvent>(),
        code::<CombatEventRecord>(),
        code::<VoiceNetDef>(),
        code::<VoiceNetRecord>(),
        code::<VoiceFrame>(),
        code::<VoiceRelay>(),
        code::<MusicState>(),
        code::<Haptic>(),
        code::<MissionOutcome>(),
        code::<RadioCommand>(),
        code::<RadioTransmission>(),
        code::<PlayerRoster>(),
        code::<PlayerRosterEntry>(),
        code::<MatchState>(),
        code::<MatchTeamScore>(),
        code::<Scoreboard>(),
        code::<ScoreboardRow>(),
        code::<TeamRequest>(),
        code::<GmWorldState>(),
        code::<GmEntityRecord>(),
        code::<ServerQuery>(),
    ]
}

#[test]
fn every_fixed_struct_matches_its_table() {
    let mut problems = Vec::new();
    let types = fixed_types();
    for c in &types {
        compare(table(c.name), c, usize::MAX, &mut problems);
    }
    // Tail-appended `build`: the `Fixed` part is the legacy prefix, the tail is 24 bytes.
    compare(
        table("MsgLanBeacon"),
        &code::<LanBeacon>(),
        LanBeacon::SIZE,
        &mut problems,
    );
    compare(
        table("MsgServerInfo"),
        &code::<ServerInfo>(),
        ServerInfo::SIZE,
        &mut problems,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // Every transcribed table is covered by some check in this file.
    let probed = [
        "MsgMotd",
        "MsgChatHeader",
        "MsgChatEventHeader",
        "MsgLanBeacon",
        "MsgServerInfo",
    ];
    for t in SPEC.iter().chain(CPP) {
        assert!(
            types.iter().any(|c| c.name == t.name) || probed.contains(&t.name),
            "{} is not compared with the code",
            t.name
        );
    }
}

#[test]
fn build_tails_sit_where_the_tables_put_them() {
    for (name, legacy) in [
        ("MsgLanBeacon", LanBeacon::SIZE),
        ("MsgServerInfo", ServerInfo::SIZE),
    ] {
        let t = table(name);
        let tail = t.rows.last().expect("rows");
        assert_eq!(base_name(tail.2), "build", "{name}");
        assert_eq!((tail.0, tail.1), (legacy, BUILD_VERSION_BYTES), "{name}");
        assert_eq!(legacy + BUILD_VERSION_BYTES, t.size, "{name}");
    }

    // Bytes: the tail is written at the legacy size and read back; a legacy datagram decodes.
    let beacon = LanBeacon {
        protocol_version: 1,
        name: FixedStr::new("n"),
        build: Some(FixedStr::new("0.3.14")),
        ..LanBeacon::default()
    };
    let bytes = Packet::new(beacon.clone()).encode().expect("encodes");
    assert_eq!(bytes.len(), table("MsgLanBeacon").size);
    assert_eq!(&bytes[78..84], b"0.3.14");
    assert!(bytes[84..].iter().all(|&b| b == 0));
    let back = Packet::decode(&bytes[..78]).expect("legacy beacon decodes");
    assert_eq!(
        back.message,
        Message::LanBeacon(LanBeacon {
            build: None,
            ..beacon
        })
    );

    let info = ServerInfo {
        mission: FixedStr::new("m"),
        build: Some(FixedStr::new("9.9")),
        ..ServerInfo::default()
    };
    let bytes = Packet::new(info).encode().expect("encodes");
    assert_eq!(bytes.len(), table("MsgServerInfo").size);
    assert_eq!(&bytes[184..187], b"9.9");
    assert_eq!(bytes[120], b'm');
}

/// Checks that `bytes` carries the message id at 0 and each probed field where `table` says.
fn probe(table: &Table, bytes: &[u8], fields: &[(&str, &[u8])]) {
    for &(field, expected) in fields {
        let &(offset, size, _) = table
            .rows
            .iter()
            .find(|r| base_name(r.2) == field)
            .unwrap_or_else(|| panic!("{} has no row {field}", table.name));
        assert_eq!(
            &bytes[offset..offset + size.min(expected.len())],
            expected,
            "{}.{field}",
            table.name
        );
    }
    // Reserved bytes are zero.
    for &(offset, size, name) in table.rows {
        if base_name(name).starts_with("reserved") {
            assert!(
                bytes[offset..offset + size].iter().all(|&b| b == 0),
                "{}.{name} not zero",
                table.name
            );
        }
    }
}

#[test]
fn variable_headers_match_their_tables() {
    let motd = Packet::new(Motd {
        display_seconds: 0xBEEF,
        text: "hi".into(),
    })
    .encode()
    .expect("encodes");
    probe(
        table("MsgMotd"),
        &motd,
        &[("msgId", &[0x08]), ("displaySeconds", &[0xEF, 0xBE])],
    );
    assert_eq!(&motd[4..], b"hi\0", "text follows the 4-byte header");

    let chat = Packet::new(Chat {
        channel: fl_protocol::enums::ChatChannel::Team,
        text: "x".into(),
    })
    .encode()
    .expect("encodes");
    probe(
        table("MsgChatHeader"),
        &chat,
        &[("msgId", &[0x20]), ("channel", &[1])],
    );
    assert_eq!(&chat[4..], b"x\0");

    let event = Packet::new(ChatEvent {
        channel: fl_protocol::enums::ChatChannel::All,
        sender_peer_id: 0x0102_0304,
        text: "y".into(),
    })
    .encode()
    .expect("encodes");
    probe(
        table("MsgChatEventHeader"),
        &event,
        &[
            ("msgId", &[0x21]),
            ("channel", &[0]),
            ("senderPeerId", &[4, 3, 2, 1]),
        ],
    );
    assert_eq!(&event[8..], b"y\0");
}

#[test]
fn min_bytes_are_the_fixed_sizes() {
    // The dispatch table's size floor equals the struct or header size (legacy prefix for the
    // tail-appended discovery messages; header + NUL for the text messages).
    let expect = |id: MsgId, size: usize| assert_eq!(id.info().min_bytes, size, "{id:?}");
    for (id, name) in [
        (MsgId::Hello, "MsgHello"),
        (MsgId::ConnectRequest, "MsgConnectRequest"),
        (MsgId::ConnectAck, "MsgConnectAck"),
        (MsgId::WorldSnapshot, "MsgWorldSnapshotHeader"),
        (MsgId::ClientInput, "MsgClientInput"),
        (MsgId::WeatherState, "MsgWeatherState"),
        (MsgId::ServerNotice, "MsgServerNotice"),
        (MsgId::AdminCommand, "MsgAdminCommand"),
        (MsgId::AdminResponse, "MsgAdminResponse"),
        (MsgId::AdminResponseChunk, "MsgAdminResponseChunk"),
        (MsgId::ConnectRefusal, "MsgConnectRefusal"),
        (MsgId::Heartbeat, "MsgHeartbeat"),
        (MsgId::PeerDelay, "MsgPeerDelay"),
        (MsgId::WingmanCommand, "MsgWingmanCommand"),
        (MsgId::WingmanAck, "MsgWingmanAck"),
        (MsgId::CombatEvent, "MsgCombatEvent"),
        (MsgId::FactionDef, "MsgFactionDef"),
        (MsgId::Datalink, "MsgDatalink"),
        (MsgId::CrewRoster, "MsgCrewRoster"),
        (MsgId::SeatRequest, "MsgSeatRequest"),
        (MsgId::SeatResult, "MsgSeatResult"),
        (MsgId::MusicState, "MsgMusicState"),
        (MsgId::Haptic, "MsgHaptic"),
        (MsgId::MissionOutcome, "MsgMissionOutcome"),
        (MsgId::RadioCommand, "MsgRadioCommand"),
        (MsgId::RadioTransmission, "MsgRadioTransmission"),
        (MsgId::MissionRoster, "MsgMissionRoster"),
        (MsgId::PlayerRoster, "MsgPlayerRosterHeader"),
        (MsgId::MatchState, "MsgMatchState"),
        (MsgId::Scoreboard, "MsgScoreboardHeader"),
        (MsgId::TeamRequest, "MsgTeamRequest"),
        (MsgId::GmWorldState, "MsgGmWorldStateHeader"),
        (MsgId::VoiceNetDef, "MsgVoiceNetDef"),
        (MsgId::VoiceFrame, "MsgVoiceFrame"),
        (MsgId::VoiceRelay, "MsgVoiceRelay"),
        (MsgId::AlertLevelChange, "MsgAlertLevelChange"),
        (MsgId::ServerQuery, "MsgServerQuery"),
    ] {
        expect(id, table(name).size);
    }
    expect(MsgId::LanBeacon, 78);
    expect(MsgId::ServerInfo, 184);
    expect(MsgId::Motd, table("MsgMotd").size + 1);
    expect(MsgId::Chat, table("MsgChatHeader").size + 1);
    expect(MsgId::ChatEvent, table("MsgChatEventHeader").size + 1);
}

#[test]
fn the_heading_parser_reads_the_document_shapes() {
    assert_eq!(
        heading("MsgHello — 4 bytes"),
        Some(("MsgHello".into(), Some(4)))
    );
    assert_eq!(
        heading("MsgDatalink — 40 + trackCount×40 + threatCount×28 bytes"),
        Some(("MsgDatalink".into(), Some(40)))
    );
    assert_eq!(
        heading("MsgMotd — variable length"),
        Some(("MsgMotd".into(), None))
    );
    assert_eq!(
        heading("Then seatCount × CrewRosterSeat (44 bytes each, align 4):"),
        Some(("CrewRosterSeat".into(), Some(44)))
    );
    assert_eq!(
        heading("CombatEventRecord (each):"),
        Some(("CombatEventRecord".into(), None))
    );
    assert_eq!(
        heading("Each MsgVoiceNetRecord (68 bytes, align 4):"),
        Some(("MsgVoiceNetRecord".into(), Some(68)))
    );
    assert_eq!(heading("Header:"), None);
    assert_eq!(
        heading("MsgId::Motd = 0x08 is an additive message ID"),
        None
    );
}
