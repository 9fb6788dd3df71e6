//! Combat and command messages: `MsgDatalink` (+ tracks and threats), `MsgCombatEvent`
//! (+ records), `MsgWingmanCommand`, `MsgWingmanAck` and `MsgGmWorldState` (+ records).

use crate::enums::{
    CombatEventType, ContactState, Identification, SensorType, ThreatLevel, WeaponType,
    WingmanCommand as WingmanOrder, WingmanResult,
};
use crate::field::{FieldError, Source, Visitor};
use crate::ids::MsgId;
use crate::layout::{Counts, Fixed, push_fixed, read_records, wire_struct};
use crate::msg::{
    RecordSource, Reflect, WireMessage, build_records, check_given_count, count_fits,
    counted_message, decode_fixed, fixed_message,
};
use crate::{DecodeError, EncodeError};

/// Most tracks one datalink packet may carry (`kMaxDatalinkTracks`).
pub const MAX_DATALINK_TRACKS: usize = 48;
/// Most RWR threats one datalink packet may carry (`kMaxDatalinkThreats`).
pub const MAX_DATALINK_THREATS: usize = 16;
/// `DatalinkTrack::flags`: a firing-quality (STT) lock.
pub const TRACK_FLAG_FIRING_QUALITY: u8 = 0x01;
/// `DatalinkTrack::flags`: this peer's own sensors hold the target.
pub const TRACK_FLAG_OWN_SENSOR: u8 = 0x02;

wire_struct! {
    /// Server → client fused team picture + RWR, ~6 Hz, unreliable.
    pub struct Datalink ("MsgDatalink", 40) {
        @0 msgId = 0x12;
        /// Reserved flags byte (kept as received).
        @1 flags flags: u8;
        @2 trackCount count u16;
        @4 threatCount count u16;
        @6 reserved pad 2;
        @8 tickIndex tick_index: u64;
        /// World position the relative positions are measured from.
        @16 origin origin: [f64; 3];
    }
    extra {
        pub tracks: Vec<DatalinkTrack>,
        pub threats: Vec<DatalinkThreat>,
    }
}

wire_struct! {
    /// One fused target of a `MsgDatalink`.
    pub struct DatalinkTrack ("DatalinkTrack", 40) {
        @0 targetIdx target_idx: u32;
        @4 typeIndex type_index: u32;
        @8 targetGen target_gen: u16;
        @10 factionIndex faction_index: u16;
        @12 state state: ContactState;
        @13 ident ident: Identification;
        /// Bit `1 << SensorType` per sensor kind holding it.
        @14 sensorTypeMask sensor_type_mask: u8;
        /// `TRACK_FLAG_*`.
        @15 flags flags: u8;
        @16 relPos rel_pos: [f32; 3];
        @28 relVel rel_vel: [f32; 3];
    }
}

wire_struct! {
    /// One RWR strobe of a `MsgDatalink`.
    pub struct DatalinkThreat ("DatalinkThreat", 28) {
        @0 emitterIdx emitter_idx: u32;
        @4 emitterTypeIndex emitter_type_index: u32;
        @8 emitterGen emitter_gen: u16;
        @10 emitterFactionIndex emitter_faction_index: u16;
        @12 channel channel: SensorType;
        @13 level level: ThreatLevel;
        @14 ident ident: Identification;
        @15 flags flags: u8;
        @16 relPos rel_pos: [f32; 3];
    }
}

impl WireMessage for Datalink {
    const ID: MsgId = MsgId::Datalink;
    fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        let (mut m, counts) = decode_fixed::<Datalink>(bytes)?;
        let (tracks, threats) = (counts.get(0) as usize, counts.get(1) as usize);
        if tracks > MAX_DATALINK_TRACKS || threats > MAX_DATALINK_THREATS {
            return Err(DecodeError::malformed(
                Self::NAME,
                format!(
                    "{tracks} tracks / {threats} threats exceed the maximum of \
                     {MAX_DATALINK_TRACKS} / {MAX_DATALINK_THREATS}"
                ),
            ));
        }
        let start = Self::SIZE;
        m.tracks = read_records(Self::NAME, bytes, start, tracks)?;
        let threat_start = start + tracks * DatalinkTrack::SIZE;
        m.threats = read_records(Self::NAME, bytes, threat_start, threats)?;
        Ok((m, threat_start + threats * DatalinkThreat::SIZE))
    }
    fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let t = count_fits(Self::NAME, "tracks", self.tracks.len(), MAX_DATALINK_TRACKS)?;
        let h = count_fits(
            Self::NAME,
            "threats",
            self.threats.len(),
            MAX_DATALINK_THREATS,
        )?;
        push_fixed(out, self, &Counts::new(&[t, h]));
        for r in &self.tracks {
            push_fixed(out, r, &Counts::default());
        }
        for r in &self.threats {
            push_fixed(out, r, &Counts::default());
        }
        Ok(())
    }
}

impl Reflect for Datalink {
    fn visit_fields(&self, visitor: &mut dyn Visitor) {
        let counts = Counts::new(&[self.tracks.len() as u32, self.threats.len() as u32]);
        self.visit_fixed(visitor, &counts);
    }
    fn record_count(&self) -> usize {
        self.tracks.len() + self.threats.len()
    }
    /// Records are the tracks followed by the threats.
    fn visit_record(&self, i: usize, visitor: &mut dyn Visitor) {
        if let Some(t) = self.tracks.get(i) {
            t.visit_fixed(visitor, &Counts::default());
        } else if let Some(t) = self.threats.get(i - self.tracks.len()) {
            t.visit_fixed(visitor, &Counts::default());
        }
    }
    /// Records carrying `emitterIdx` are threats, all others tracks; tracks come first.
    fn build(fields: &mut dyn Source, records: &mut dyn RecordSource) -> Result<Self, FieldError> {
        let (mut m, given) = Datalink::build_fixed(fields)?;
        let n = records.len();
        let tracks = (0..n)
            .take_while(|&i| !records.record_has(i, "emitterIdx"))
            .count();
        if (tracks..n).any(|i| !records.record_has(i, "emitterIdx")) {
            return Err(FieldError::Other(
                "Datalink records: every track must come before the first threat".into(),
            ));
        }
        check_given_count("trackCount", given.get(0), tracks)?;
        check_given_count("threatCount", given.get(1), n - tracks)?;
        m.tracks = build_records(records, 0..tracks)?;
        m.threats = build_records(records, tracks..n)?;
        Ok(m)
    }
}

wire_struct! {
    /// Server → client gameplay events (kill feed, own stats).
    pub struct CombatEvent ("MsgCombatEvent", 4) {
        @0 msgId = 0x0F;
        @1 count count u8;
        @2 reserved pad 2;
    }
    extra {
        pub records: Vec<CombatEventRecord>,
    }
}

wire_struct! {
    /// One event of a `MsgCombatEvent`. The `type` byte is kept raw: receivers skip types they
    /// do not know (see [`CombatEventRecord::event_type`]).
    pub struct CombatEventRecord ("CombatEventRecord", 32) {
        @0 type kind: u8;
        /// `WeaponType` ordinal; 0xFF = none/unknown.
        @1 weaponClass weapon_class: u8;
        @2 reserved pad 2;
        @4 subjectIdx subject_idx: u32;
        @8 subjectGen subject_gen: u16;
        @10 pad0 pad 2;
        /// 0xFFFFFFFF = environment.
        @12 instigatorIdx instigator_idx: u32;
        @16 instigatorGen instigator_gen: u16;
        @18 pad1 pad 2;
        /// Kill: instigator's owning peer. Stats: kills.
        @20 a a: u32;
        /// Kill: subject's owning peer. Stats: losses.
        @24 b b: u32;
        /// Stats: score.
        @28 c c: i32;
    }
}

impl CombatEventRecord {
    /// The record type, or `None` for a type this build does not know (skip the record).
    pub fn event_type(&self) -> Option<CombatEventType> {
        CombatEventType::from_u8(self.kind)
    }
    /// The credited weapon class, if known.
    pub fn weapon_type(&self) -> Option<WeaponType> {
        WeaponType::from_u8(self.weapon_class)
    }
}

counted_message!(CombatEvent => CombatEvent, records: CombatEventRecord,
    count "count" u8, max u8::MAX as usize);

/// `MsgWingmanCommand::flags`: apply to every sub-formation too.
pub const FLIGHT_FLAG_CASCADE: u8 = 0x01;

wire_struct! {
    /// Client → server formation order. `command` stays raw: an unknown ordinal is answered
    /// with `WingmanResult::Rejected`, so the packet must still decode.
    pub struct WingmanCommand ("MsgWingmanCommand", 16) {
        @0 msgId = 0x0D;
        @1 command command: u8;
        @2 protocolVersion protocol_version: u16;
        /// One member's entity index, or 0xFFFFFFFF for the whole formation.
        @4 memberIdx member_idx: u32;
        @8 seqNum seq_num: u32;
        /// 0xFFFF = the formation I command.
        @12 flightId flight_id: u16;
        @14 flags flags: u8;
        @15 reserved pad 1;
    }
}

impl WingmanCommand {
    /// The order, or `None` when the ordinal is unknown (answer `Rejected`).
    pub fn order(&self) -> Option<WingmanOrder> {
        WingmanOrder::from_u8(self.command)
    }
}

wire_struct! {
    /// Server → client outcome of an order, a flight check-in or a relayed call.
    pub struct WingmanAck ("MsgWingmanAck", 16) {
        @0 msgId = 0x0E;
        /// Echoed order ordinal (raw).
        @1 command command: u8;
        @2 result result: WingmanResult;
        @3 flightSize flight_size: u8;
        @4 memberIdx member_idx: u32;
        /// 0xFFFFFFFF = no target.
        @8 targetIdx target_idx: u32;
        @12 flightId flight_id: u16;
        @14 reserved pad 2;
    }
}

fixed_message!(WingmanCommand => WingmanCommand, WingmanAck => WingmanAck);

/// `GmEntityRecord::flags`: a player owns the entity.
pub const GM_FLAG_PLAYER_OWNED: u8 = 0x01;
/// `GmEntityRecord::flags`: the entity's jammer is on.
pub const GM_FLAG_ECM_ACTIVE: u8 = 0x02;

wire_struct! {
    /// Server → client game-master overview, chunked: each packet one slice of one tick.
    pub struct GmWorldState ("MsgGmWorldStateHeader", 16) {
        @0 msgId = 0x22;
        /// Reserved flags byte (kept as received).
        @1 flags flags: u8;
        @2 count count u16;
        @4 reserved pad 4;
        /// Tick the aggregate was built at (chunks of one tick share it).
        @8 tick tick: u64;
    }
    extra {
        pub records: Vec<GmEntityRecord>,
    }
}

wire_struct! {
    /// One entity of the game-master overview.
    pub struct GmEntityRecord ("GmEntityRecord", 44) {
        @0 entityIdx entity_idx: u32;
        @4 gen generation: u16;
        @6 factionIndex faction_index: u16;
        @8 typeIndex type_index: u32;
        /// Controlling peer; 0 = AI.
        @12 ownerPeerId owner_peer_id: u32;
        /// 0 = not in a formation.
        @16 formationId formation_id: u16;
        /// `ObjectCategory` ordinal (raw: an icon choice, unknown → default icon).
        @18 category category: u8;
        /// `DamageLevel` ordinal (raw).
        @19 damageLevel damage_level: u8;
        /// `GM_FLAG_*`.
        @20 flags flags: u8;
        /// 0..=100.
        @21 hpPct hp_pct: u8;
        @22 reserved pad 2;
        @24 pos pos: [f32; 3];
        /// Horizontal velocity (x, z).
        @36 velXZ vel_xz: [f32; 2];
    }
}

counted_message!(GmWorldState => GmWorldState, records: GmEntityRecord,
    count "count" u16, max u16::MAX as usize);
