//! The TLV extension block that may follow the body of any message: `[tag u16][len u16][data]…`,
//! little-endian and unaligned.
//!
//! [`Extensions`] keeps the block as bytes (one allocation) and iterates it lazily: unknown tags
//! are skipped by their length, and an entry whose length overruns the block stops the scan
//! (the entries before it are kept). [`Ext`] is the typed view of every tag the spec defines.
//! This module knows payload shapes, not which message a tag may ride on.

use crate::enums::EffectType;
use crate::field::truncate_utf8;
use crate::msg::world::ClientInput;

/// Tag numbers (`ExtTag`).
pub mod tag {
    pub const SNAPSHOT_PEER_COUNT: u16 = 0x0100;
    pub const SNAPSHOT_PEER_LATENCY: u16 = 0x0101;
    pub const SNAPSHOT_PEER_DELAY_TICKS: u16 = 0x0102;
    pub const SNAPSHOT_DESPAWN: u16 = 0x0103;
    pub const SNAPSHOT_EFFECTS: u16 = 0x0104;
    pub const SNAPSHOT_LAST_ACKED_SEQ_NUM: u16 = 0x0105;
    pub const SNAPSHOT_CREW: u16 = 0x0106;
    pub const SNAPSHOT_ARTICULATION: u16 = 0x0107;
    pub const SNAPSHOT_SERVER_THROTTLE: u16 = 0x0108;
    /// Our addition (free tag in the snapshot range): the receiving pilot's exact flight state.
    pub const SNAPSHOT_OWN_STATE: u16 = 0x0110;
    /// Our addition: the server's input timing for the receiving pilot (the lead its input
    /// clock should hold, the buffer's target depth and what is queued).
    pub const SNAPSHOT_INPUT_TIMING: u16 = 0x0111;
    pub const CONNECT_ACK_AUTHORITY: u16 = 0x0201;
    pub const CONNECT_ACK_TYPES_UNCHANGED: u16 = 0x0202;
    /// Our addition: copies of the inputs before this `MsgClientInput` (loss cover).
    pub const INPUT_REDUNDANCY: u16 = 0x0300;
    /// Our addition: how far the client's input clock runs ahead of its unsteered 60 Hz clock.
    pub const INPUT_CLOCK_LEAD: u16 = 0x0301;
    /// Our addition: how far behind the input's `tickIndex` the client drew remote entities
    /// (its interpolation delay as shown) for this input and the ones its `InputRedundancy`
    /// repeats, for server-side lag compensation.
    pub const INPUT_VIEW_DELAY: u16 = 0x0302;
    /// Our addition: the entity the pilot designates as its radar's STT target (pool index,
    /// `0xFFFFFFFF` = none).
    pub const INPUT_DESIGNATE: u16 = 0x0303;
    pub const WEATHER_WIND_PROFILE: u16 = 0x0400;
    /// Our addition: the tick from which a `MsgWeatherState`'s values apply.
    pub const WEATHER_EPOCH: u16 = 0x0401;
    /// Our addition: compact copies of the weather windows announced just before this one.
    pub const WEATHER_WINDOW_COPIES: u16 = 0x0402;
    pub const CONNECT_SEAT_CLAIM: u16 = 0x0500;
    pub const CONNECT_IDENTITY: u16 = 0x0501;
    pub const CONNECT_JOIN_PASSWORD: u16 = 0x0502;
    pub const HELLO_BUILD_VERSION: u16 = 0x0600;

    /// The spec's name of a tag, or `None` for a tag this crate does not define.
    pub fn name(tag: u16) -> Option<&'static str> {
        Some(match tag {
            SNAPSHOT_PEER_COUNT => "SnapshotPeerCount",
            SNAPSHOT_PEER_LATENCY => "SnapshotPeerLatency",
            SNAPSHOT_PEER_DELAY_TICKS => "SnapshotPeerDelayTicks",
            SNAPSHOT_DESPAWN => "SnapshotDespawn",
            SNAPSHOT_EFFECTS => "SnapshotEffects",
            SNAPSHOT_LAST_ACKED_SEQ_NUM => "SnapshotLastAckedSeqNum",
            SNAPSHOT_CREW => "SnapshotCrew",
            SNAPSHOT_ARTICULATION => "SnapshotArticulation",
            SNAPSHOT_SERVER_THROTTLE => "SnapshotServerThrottle",
            SNAPSHOT_OWN_STATE => "SnapshotOwnState",
            SNAPSHOT_INPUT_TIMING => "SnapshotInputTiming",
            CONNECT_ACK_AUTHORITY => "ConnectAckAuthority",
            CONNECT_ACK_TYPES_UNCHANGED => "ConnectAckTypesUnchanged",
            INPUT_REDUNDANCY => "InputRedundancy",
            INPUT_CLOCK_LEAD => "InputClockLead",
            INPUT_VIEW_DELAY => "InputViewDelay",
            INPUT_DESIGNATE => "InputDesignate",
            WEATHER_WIND_PROFILE => "WeatherWindProfile",
            WEATHER_EPOCH => "WeatherEpoch",
            WEATHER_WINDOW_COPIES => "WeatherWindowCopies",
            CONNECT_SEAT_CLAIM => "ConnectSeatClaim",
            CONNECT_IDENTITY => "ConnectIdentity",
            CONNECT_JOIN_PASSWORD => "ConnectJoinPassword",
            HELLO_BUILD_VERSION => "HelloBuildVersion",
            _ => return None,
        })
    }

    /// The tag with this spec name.
    pub fn from_name(name: &str) -> Option<u16> {
        (0x0100..=0x06FF).find(|&t| self::name(t) == Some(name))
    }
}

/// Bytes of one TLV entry header.
pub const ENTRY_HEADER_BYTES: usize = 4;
/// Bytes of one `SnapshotEffects` record.
pub const EFFECT_RECORD_BYTES: usize = 22;
/// Effects a server puts in one snapshot at most.
pub const MAX_EFFECTS_PER_SNAPSHOT: usize = 16;
/// Longest `HelloBuildVersion` value.
pub const MAX_BUILD_VERSION_BYTES: usize = 24;
/// Longest `ConnectIdentity` value.
pub const MAX_IDENTITY_BYTES: usize = 40;
/// Longest `ConnectJoinPassword` value.
pub const MAX_JOIN_PASSWORD_BYTES: usize = 64;
/// Most f64 words a `SnapshotOwnState` may carry (format 2: 32 flight words and at most 154
/// combat words).
pub const MAX_OWN_STATE_WORDS: usize = 192;
/// The `SnapshotOwnState` format this build writes: `fl_flight::AircraftState::to_words`, then
/// `fl_combat::own::OwnCombat::to_words` (docs/protocol.md).
pub const OWN_STATE_FORMAT: u16 = 2;
/// The older format (flight words only), still understood.
pub const OWN_STATE_FORMAT_FLIGHT: u16 = 1;
/// Most earlier inputs one `InputRedundancy` may carry (its same-mask is 16 bits).
pub const MAX_REDUNDANT_INPUTS: usize = 15;
/// Most weather window copies one `WeatherWindowCopies` entry may carry (more refuse the entry;
/// the encoder cuts the list).
pub const MAX_WEATHER_COPIES: usize = 8;
/// Bytes of one full `InputRedundancy` entry.
pub const INPUT_COPY_BYTES: usize = 22;
/// `InputClockLead`, `InputViewDelay` and `SnapshotInputTiming` count ticks in thousandths.
pub const MILLITICKS_PER_TICK: f64 = 1000.0;
/// The largest `InputViewDelay` value a receiver accepts, thousandths of a tick (60 ticks =
/// 1 s): twice the client's largest interpolation delay (500 ms) plus the 15 ticks of the
/// oldest copy. A larger value is not an interpolation delay, and the entry is refused (the
/// server then rewinds by the latency alone); the encoder saturates at it.
pub const MAX_VIEW_DELAY_MILLITICKS: u16 = 60_000;
/// Most values one `InputViewDelay` carries: the input's own and one per `InputRedundancy`
/// copy.
pub const MAX_VIEW_DELAYS: usize = 1 + MAX_REDUNDANT_INPUTS;
/// `InputDesignate`'s "no designation" (the wire's invalid entity index).
pub const DESIGNATE_NONE: u32 = u32::MAX;

/// One raw entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtEntry<'a> {
    pub tag: u16,
    pub data: &'a [u8],
}

/// A message's extension block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extensions {
    bytes: Vec<u8>,
}

/// Why an extension entry could not be appended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("extension 0x{tag:04x}: payload of {len} bytes exceeds 65535")]
pub struct ExtTooLong {
    pub tag: u16,
    pub len: usize,
}

impl Extensions {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a block, keeping every well-formed entry up to the first one whose length
    /// overruns (trailing bytes fewer than a header are ignored too).
    pub fn parse(block: &[u8]) -> Self {
        let valid = Self::valid_prefix(block);
        Self {
            bytes: block[..valid].to_vec(),
        }
    }

    fn valid_prefix(block: &[u8]) -> usize {
        let mut pos = 0;
        while block.len() - pos >= ENTRY_HEADER_BYTES {
            let len = usize::from(u16::from_le_bytes([block[pos + 2], block[pos + 3]]));
            let end = pos + ENTRY_HEADER_BYTES + len;
            if end > block.len() {
                break;
            }
            pos = end;
        }
        pos
    }

    /// The entries, in order.
    pub fn iter(&self) -> ExtIter<'_> {
        ExtIter { rest: &self.bytes }
    }

    /// The first entry with `tag`.
    pub fn find(&self, tag: u16) -> Option<&[u8]> {
        self.iter().find(|e| e.tag == tag).map(|e| e.data)
    }

    /// The typed value of the first entry with `tag`, if present and well-formed.
    pub fn get(&self, tag: u16) -> Option<Ext> {
        self.find(tag).and_then(|data| Ext::parse(tag, data).ok())
    }

    /// Appends a raw entry.
    pub fn push_raw(&mut self, tag: u16, data: &[u8]) -> Result<(), ExtTooLong> {
        let len = u16::try_from(data.len()).map_err(|_| ExtTooLong {
            tag,
            len: data.len(),
        })?;
        self.bytes.extend_from_slice(&tag.to_le_bytes());
        self.bytes.extend_from_slice(&len.to_le_bytes());
        self.bytes.extend_from_slice(data);
        Ok(())
    }

    /// Appends a typed entry.
    pub fn push(&mut self, ext: &Ext) -> Result<(), ExtTooLong> {
        let mut data = Vec::new();
        ext.encode_payload(&mut data);
        self.push_raw(ext.tag(), &data)
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Removes every entry (keeps the allocation).
    pub fn clear(&mut self) {
        self.bytes.clear();
    }

    /// The encoded block.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Iterator over an extension block's entries.
#[derive(Debug, Clone)]
pub struct ExtIter<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for ExtIter<'a> {
    type Item = ExtEntry<'a>;
    fn next(&mut self) -> Option<ExtEntry<'a>> {
        if self.rest.len() < ENTRY_HEADER_BYTES {
            return None;
        }
        let tag = u16::from_le_bytes([self.rest[0], self.rest[1]]);
        let len = usize::from(u16::from_le_bytes([self.rest[2], self.rest[3]]));
        let end = ENTRY_HEADER_BYTES + len;
        if end > self.rest.len() {
            self.rest = &[];
            return None;
        }
        let data = &self.rest[ENTRY_HEADER_BYTES..end];
        self.rest = &self.rest[end..];
        Some(ExtEntry { tag, data })
    }
}

/// One cosmetic weapon effect (`SnapshotEffects`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EffectRecord {
    /// `EffectType` ordinal; unknown types are kept here and skipped by [`EffectRecord::kind`].
    pub kind: u8,
    /// `WeaponType` ordinal, 0xFF = none.
    pub weapon_class: u8,
    pub src_idx: u32,
    /// 0xFFFFFFFF = none.
    pub tgt_idx: u32,
    /// World position (float precision is enough for particles).
    pub pos: [f32; 3],
}

impl EffectRecord {
    /// The effect type, or `None` for one this build does not know (skip it).
    pub fn effect_type(&self) -> Option<EffectType> {
        EffectType::from_u8(self.kind)
    }
}

/// One turret pose entry (`SnapshotCrew`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CrewPose {
    pub entity_idx: u32,
    /// (azimuth, elevation) codes per turret: az over ±π, el over ±π/2, as `i16` of 32767.
    pub turrets: Vec<(i16, i16)>,
}

/// Quantizes a turret angle to its `i16` code over `±range`.
pub fn quantize_turret_angle(angle: f64, range: f64) -> i16 {
    let a = if angle.is_nan() { 0.0 } else { angle };
    // |a / range| ≤ 1 after the clamp, so the product fits i16.
    ((a.clamp(-range, range) / range) * 32767.0).round() as i16
}

/// The angle a turret code stands for.
pub fn dequantize_turret_angle(code: i16, range: f64) -> f64 {
    f64::from(code) / 32767.0 * range
}

/// One entity's articulation channels (`SnapshotArticulation`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ArticulationEntry {
    pub entity_idx: u32,
    /// Bit n = `ArtChannel` n present.
    pub channel_mask: u16,
    /// One byte per set bit, in ascending bit order.
    pub values: Vec<u8>,
}

/// One knot of an altitude wind profile (`WeatherWindProfile`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WindKnot {
    pub alt_m: f32,
    pub wind_x: f32,
    pub wind_z: f32,
}

/// One weather window carried again (`WeatherWindowCopies`): everything the wind field of that
/// window is made of, as the f32 its own `MsgWeatherState` carried. Its first tick is the
/// carrying message's `WeatherEpoch` minus `back_ticks`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WeatherWindowCopy {
    /// How many ticks before the carrying message's epoch this window starts (> 0).
    pub back_ticks: u16,
    pub wind_x: f32,
    pub wind_z: f32,
    pub turbulence_amp: f32,
    /// The window's `WeatherWindProfile` knots (empty: none was sent).
    pub profile: Vec<WindKnot>,
}

/// One earlier input carried again (`InputRedundancy`): every field that steers the aircraft.
/// The camera eye, view axis and ack stamp are not repeated: the newest message's are the ones
/// that matter.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct InputCopy {
    pub buttons: u8,
    pub art_buttons: u8,
    pub selected_station: u8,
    pub radar_mode: u8,
    pub flaps: u8,
    pub speedbrake: u8,
    pub throttle: f32,
    pub elevator: f32,
    pub aileron: f32,
    pub rudder: f32,
}

impl InputCopy {
    /// The steering fields of `input`.
    pub fn of(input: &ClientInput) -> Self {
        Self {
            buttons: input.buttons,
            art_buttons: input.art_buttons,
            selected_station: input.selected_station,
            radar_mode: input.radar_mode,
            flaps: input.flaps,
            speedbrake: input.speedbrake,
            throttle: input.throttle,
            elevator: input.elevator,
            aileron: input.aileron,
            rudder: input.rudder,
        }
    }

    /// Bit-for-bit equality (floats by their bits, so a copy is exactly what was predicted).
    pub fn same_bits(&self, other: &Self) -> bool {
        (
            self.buttons,
            self.art_buttons,
            self.selected_station,
            self.radar_mode,
            self.flaps,
            self.speedbrake,
        ) == (
            other.buttons,
            other.art_buttons,
            other.selected_station,
            other.radar_mode,
            other.flaps,
            other.speedbrake,
        ) && [self.throttle, self.elevator, self.aileron, self.rudder].map(f32::to_bits)
            == [other.throttle, other.elevator, other.aileron, other.rudder].map(f32::to_bits)
    }

    /// The input `seq` this copy stands for: its steering fields, everything else (protocol
    /// version, ack stamp, camera) from the message that carried it.
    pub fn to_input(&self, carrier: &ClientInput, seq: u32) -> ClientInput {
        ClientInput {
            seq_num: seq,
            buttons: self.buttons,
            art_buttons: self.art_buttons,
            selected_station: self.selected_station,
            radar_mode: self.radar_mode,
            flaps: self.flaps,
            speedbrake: self.speedbrake,
            throttle: self.throttle,
            elevator: self.elevator,
            aileron: self.aileron,
            rudder: self.rudder,
            ..carrier.clone()
        }
    }
}

/// The `InputRedundancy` entry for a message: `previous` are the inputs sent before `current`,
/// newest first (`current.seq_num − 1`, `− 2`, …; at most [`MAX_REDUNDANT_INPUTS`] are used).
/// An input identical to the one after it is carried as a bit of the same-mask, not repeated.
pub fn input_redundancy(current: &ClientInput, previous: &[ClientInput]) -> Ext {
    let mut newer = InputCopy::of(current);
    let copies = previous
        .iter()
        .take(MAX_REDUNDANT_INPUTS)
        .map(|p| {
            let c = InputCopy::of(p);
            let same = c.same_bits(&newer);
            newer = c;
            (!same).then_some(c)
        })
        .collect();
    Ext::InputRedundancy(copies)
}

/// The inputs an `InputRedundancy` entry carries, newest first: entry `i` is input
/// `carrier.seq_num − 1 − i` (wrapping); a same-mask entry repeats the one after it. At most
/// [`MAX_REDUNDANT_INPUTS`] (a longer list is cut, never trusted).
pub fn expand_redundancy(carrier: &ClientInput, copies: &[Option<InputCopy>]) -> Vec<ClientInput> {
    let mut newer = InputCopy::of(carrier);
    let mut out = Vec::with_capacity(copies.len().min(MAX_REDUNDANT_INPUTS));
    for (i, c) in copies.iter().take(MAX_REDUNDANT_INPUTS).enumerate() {
        let copy = c.unwrap_or(newer);
        newer = copy;
        // i < 15, so the offset fits.
        out.push(copy.to_input(carrier, carrier.seq_num.wrapping_sub(i as u32 + 1)));
    }
    out
}

/// Ticks as the wire's thousandths (rounded, saturating; NaN → 0).
pub fn ticks_to_milliticks(ticks: f64) -> i32 {
    let v = (ticks * MILLITICKS_PER_TICK).round();
    if v.is_nan() {
        0
    } else {
        v.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
    }
}

/// The wire's thousandths as ticks.
pub fn milliticks_to_ticks(v: i32) -> f64 {
    f64::from(v) / MILLITICKS_PER_TICK
}

/// A view delay in ticks as `InputViewDelay`'s thousandths: rounded, clamped to
/// `0..=MAX_VIEW_DELAY_MILLITICKS` (a client drawing ahead of its newest snapshot sends 0;
/// NaN → 0).
pub fn view_delay_to_wire(ticks: f64) -> u16 {
    let v = (ticks * MILLITICKS_PER_TICK).round();
    if v.is_nan() {
        0
    } else {
        v.clamp(0.0, f64::from(MAX_VIEW_DELAY_MILLITICKS)) as u16
    }
}

/// `InputViewDelay`'s thousandths as ticks.
pub fn view_delay_ticks(v: u16) -> f64 {
    f64::from(v) / MILLITICKS_PER_TICK
}

/// A typed extension entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Ext {
    SnapshotPeerCount(u16),
    SnapshotPeerLatency(u16),
    SnapshotPeerDelayTicks(u16),
    SnapshotDespawn(Vec<u32>),
    SnapshotEffects(Vec<EffectRecord>),
    SnapshotLastAckedSeqNum(u32),
    SnapshotCrew(Vec<CrewPose>),
    SnapshotArticulation(Vec<ArticulationEntry>),
    SnapshotServerThrottle {
        load_pct: u8,
        interval_ticks: u8,
    },
    /// The receiving pilot's exact flight state at the snapshot's tick, so prediction restarts
    /// from the truth instead of quantized values: `{u32 entityIdx, u32 entityGen (all 32 bits),
    /// u16 format, u16 wordCount, wordCount × f64}` little-endian.
    SnapshotOwnState {
        entity_idx: u32,
        entity_gen: u32,
        format: u16,
        words: Vec<f64>,
    },
    ConnectAckAuthority {
        caps: u64,
        faction_index: u16,
    },
    ConnectAckTypesUnchanged,
    /// The server's input timing for the receiving pilot (`{i32 targetLead, u8 depthTicks,
    /// u8 queued}`): the lead (thousandths of a tick, in the frame of `InputClockLead`) the
    /// client's input clock should hold so that its inputs reach the server's buffer in time
    /// with the measured arrival jitter; the buffer's target depth and the inputs queued now.
    SnapshotInputTiming {
        target_lead: i32,
        depth_ticks: u8,
        queued: u8,
    },
    /// Copies of the inputs before the message's own, newest first (`seqNum − 1`, `− 2`, …):
    /// `{u8 count, u16 sameMask, then per entry without its mask bit 22 bytes}`. `None` = the
    /// same as the entry before it (the message's own fields for the first).
    InputRedundancy(Vec<Option<InputCopy>>),
    /// How far the client's input clock runs ahead of its unsteered 60 Hz clock when it sent
    /// this input, in thousandths of a tick (`i32`).
    InputClockLead(i32),
    /// How far behind the message's `tickIndex` (the newest snapshot the client had) the
    /// remote entities on the client's screen were drawn when each input was sampled, in
    /// thousandths of a tick: `u16 × n`, n = 1 ..= [`MAX_VIEW_DELAYS`], each at most
    /// [`MAX_VIEW_DELAY_MILLITICKS`]; value 0 is the message's own input, value `i` the input
    /// `seqNum − i` (the `InputRedundancy` copies). The server rewinds hit tests to
    /// `tickIndex − delay`, the world the shooter saw.
    InputViewDelay(Vec<u16>),
    /// The entity the pilot designates for its radar's single-target track: its pool index
    /// (`u32`), [`DESIGNATE_NONE`] to clear. Sent with every input while the designation
    /// stands; the server designates only a target its sensors hold a contact on.
    InputDesignate(u32),
    WeatherWindProfile(Vec<WindKnot>),
    /// The first tick the weather message's wind, profile and turbulence apply to (u64). The
    /// server announces each weather window ahead of time, so client prediction integrates
    /// every tick with exactly the server's wind.
    WeatherEpoch(u64),
    /// Copies of the weather windows announced just before the carrying message's, so that a
    /// lost `MsgWeatherState` costs no window: `{u8 count, then per copy u16 backTicks, f32
    /// windX, f32 windZ, f32 turbulenceAmp, u8 knotCount, knots (12 bytes each)}`.
    WeatherWindowCopies(Vec<WeatherWindowCopy>),
    ConnectSeatClaim {
        entity_idx: u32,
        entity_gen: u32,
        seat_index: u8,
    },
    ConnectIdentity(String),
    ConnectJoinPassword(String),
    HelloBuildVersion(String),
}

/// Why a known tag's payload does not have its defined shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtError {
    #[error("tag 0x{0:04x} is not defined by this protocol version")]
    UnknownTag(u16),
    #[error("{name}: {reason}")]
    BadPayload { name: &'static str, reason: String },
}

struct Cursor<'a> {
    rest: &'a [u8],
    name: &'static str,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ExtError> {
        if self.rest.len() < n {
            return Err(ExtError::BadPayload {
                name: self.name,
                reason: format!("truncated: needs {n} more bytes, has {}", self.rest.len()),
            });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, ExtError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ExtError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn i16(&mut self) -> Result<i16, ExtError> {
        let b = self.take(2)?;
        Ok(i16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, ExtError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, ExtError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    fn f32(&mut self) -> Result<f32, ExtError> {
        Ok(f32::from_bits(self.u32()?))
    }
    fn end(&self) -> Result<(), ExtError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(ExtError::BadPayload {
                name: self.name,
                reason: format!("{} unexpected trailing bytes", self.rest.len()),
            })
        }
    }
}

fn exact<T>(cur: Cursor<'_>, value: T) -> Result<T, ExtError> {
    cur.end()?;
    Ok(value)
}

fn text(name: &'static str, data: &[u8], min: usize, max: usize) -> Result<String, ExtError> {
    if data.len() < min || data.len() > max {
        return Err(ExtError::BadPayload {
            name,
            reason: format!("length {} outside {min}..={max}", data.len()),
        });
    }
    Ok(String::from_utf8_lossy(data).into_owned())
}

impl Ext {
    /// The tag number.
    pub fn tag(&self) -> u16 {
        match self {
            Ext::SnapshotPeerCount(_) => tag::SNAPSHOT_PEER_COUNT,
            Ext::SnapshotPeerLatency(_) => tag::SNAPSHOT_PEER_LATENCY,
            Ext::SnapshotPeerDelayTicks(_) => tag::SNAPSHOT_PEER_DELAY_TICKS,
            Ext::SnapshotDespawn(_) => tag::SNAPSHOT_DESPAWN,
            Ext::SnapshotEffects(_) => tag::SNAPSHOT_EFFECTS,
            Ext::SnapshotLastAckedSeqNum(_) => tag::SNAPSHOT_LAST_ACKED_SEQ_NUM,
            Ext::SnapshotCrew(_) => tag::SNAPSHOT_CREW,
            Ext::SnapshotArticulation(_) => tag::SNAPSHOT_ARTICULATION,
            Ext::SnapshotServerThrottle { .. } => tag::SNAPSHOT_SERVER_THROTTLE,
            Ext::SnapshotOwnState { .. } => tag::SNAPSHOT_OWN_STATE,
            Ext::ConnectAckAuthority { .. } => tag::CONNECT_ACK_AUTHORITY,
            Ext::ConnectAckTypesUnchanged => tag::CONNECT_ACK_TYPES_UNCHANGED,
            Ext::SnapshotInputTiming { .. } => tag::SNAPSHOT_INPUT_TIMING,
            Ext::InputRedundancy(_) => tag::INPUT_REDUNDANCY,
            Ext::InputClockLead(_) => tag::INPUT_CLOCK_LEAD,
            Ext::InputViewDelay(_) => tag::INPUT_VIEW_DELAY,
            Ext::InputDesignate(_) => tag::INPUT_DESIGNATE,
            Ext::WeatherWindProfile(_) => tag::WEATHER_WIND_PROFILE,
            Ext::WeatherEpoch(_) => tag::WEATHER_EPOCH,
            Ext::WeatherWindowCopies(_) => tag::WEATHER_WINDOW_COPIES,
            Ext::ConnectSeatClaim { .. } => tag::CONNECT_SEAT_CLAIM,
            Ext::ConnectIdentity(_) => tag::CONNECT_IDENTITY,
            Ext::ConnectJoinPassword(_) => tag::CONNECT_JOIN_PASSWORD,
            Ext::HelloBuildVersion(_) => tag::HELLO_BUILD_VERSION,
        }
    }

    /// Parses a payload of a known tag. Sizes are exact: a fixed payload of the wrong length,
    /// a truncated record or trailing bytes are errors (the caller skips the entry).
    pub fn parse(tag_value: u16, data: &[u8]) -> Result<Ext, ExtError> {
        let name = tag::name(tag_value).ok_or(ExtError::UnknownTag(tag_value))?;
        let mut c = Cursor { rest: data, name };
        match tag_value {
            tag::SNAPSHOT_PEER_COUNT => {
                let v = c.u16()?;
                exact(c, Ext::SnapshotPeerCount(v))
            }
            tag::SNAPSHOT_PEER_LATENCY => {
                let v = c.u16()?;
                exact(c, Ext::SnapshotPeerLatency(v))
            }
            tag::SNAPSHOT_PEER_DELAY_TICKS => {
                let v = c.u16()?;
                exact(c, Ext::SnapshotPeerDelayTicks(v))
            }
            tag::SNAPSHOT_LAST_ACKED_SEQ_NUM => {
                let v = c.u32()?;
                exact(c, Ext::SnapshotLastAckedSeqNum(v))
            }
            tag::SNAPSHOT_DESPAWN => {
                if !data.len().is_multiple_of(4) {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!("length {} is not a multiple of 4", data.len()),
                    });
                }
                let mut out = Vec::with_capacity(data.len() / 4);
                while !c.rest.is_empty() {
                    out.push(c.u32()?);
                }
                Ok(Ext::SnapshotDespawn(out))
            }
            tag::SNAPSHOT_EFFECTS => {
                if !data.len().is_multiple_of(EFFECT_RECORD_BYTES) {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!(
                            "length {} is not a multiple of {EFFECT_RECORD_BYTES}",
                            data.len()
                        ),
                    });
                }
                let mut out = Vec::with_capacity(data.len() / EFFECT_RECORD_BYTES);
                while !c.rest.is_empty() {
                    out.push(EffectRecord {
                        kind: c.u8()?,
                        weapon_class: c.u8()?,
                        src_idx: c.u32()?,
                        tgt_idx: c.u32()?,
                        pos: [c.f32()?, c.f32()?, c.f32()?],
                    });
                }
                Ok(Ext::SnapshotEffects(out))
            }
            tag::SNAPSHOT_CREW => {
                let count = c.u8()?;
                // Each entry needs at least 5 bytes: bound the allocation by the payload.
                let mut out = Vec::with_capacity(usize::from(count).min(c.rest.len() / 5));
                for _ in 0..count {
                    let entity_idx = c.u32()?;
                    let turret_count = c.u8()?;
                    let mut turrets =
                        Vec::with_capacity(usize::from(turret_count).min(c.rest.len() / 4));
                    for _ in 0..turret_count {
                        turrets.push((c.i16()?, c.i16()?));
                    }
                    out.push(CrewPose {
                        entity_idx,
                        turrets,
                    });
                }
                exact(c, Ext::SnapshotCrew(out))
            }
            tag::SNAPSHOT_ARTICULATION => {
                let mut out = Vec::with_capacity(data.len() / 6);
                while !c.rest.is_empty() {
                    let entity_idx = c.u32()?;
                    let channel_mask = c.u16()?;
                    let n = channel_mask.count_ones() as usize;
                    let values = c.take(n)?.to_vec();
                    out.push(ArticulationEntry {
                        entity_idx,
                        channel_mask,
                        values,
                    });
                }
                Ok(Ext::SnapshotArticulation(out))
            }
            tag::SNAPSHOT_SERVER_THROTTLE => {
                let load_pct = c.u8()?;
                let interval_ticks = c.u8()?;
                exact(
                    c,
                    Ext::SnapshotServerThrottle {
                        load_pct,
                        interval_ticks,
                    },
                )
            }
            tag::SNAPSHOT_OWN_STATE => {
                let entity_idx = c.u32()?;
                let entity_gen = c.u32()?;
                let format = c.u16()?;
                let count = usize::from(c.u16()?);
                if count > MAX_OWN_STATE_WORDS {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!("{count} words exceed {MAX_OWN_STATE_WORDS}"),
                    });
                }
                let mut words = Vec::with_capacity(count.min(c.rest.len() / 8));
                for _ in 0..count {
                    words.push(f64::from_bits(c.u64()?));
                }
                exact(
                    c,
                    Ext::SnapshotOwnState {
                        entity_idx,
                        entity_gen,
                        format,
                        words,
                    },
                )
            }
            tag::CONNECT_ACK_AUTHORITY => {
                let caps = c.u64()?;
                let faction_index = c.u16()?;
                exact(
                    c,
                    Ext::ConnectAckAuthority {
                        caps,
                        faction_index,
                    },
                )
            }
            tag::CONNECT_ACK_TYPES_UNCHANGED => exact(c, Ext::ConnectAckTypesUnchanged),
            tag::SNAPSHOT_INPUT_TIMING => {
                let target_lead = c.u32()? as i32;
                let depth_ticks = c.u8()?;
                let queued = c.u8()?;
                exact(
                    c,
                    Ext::SnapshotInputTiming {
                        target_lead,
                        depth_ticks,
                        queued,
                    },
                )
            }
            tag::INPUT_CLOCK_LEAD => {
                let v = c.u32()? as i32;
                exact(c, Ext::InputClockLead(v))
            }
            tag::INPUT_DESIGNATE => {
                let v = c.u32()?;
                exact(c, Ext::InputDesignate(v))
            }
            tag::INPUT_VIEW_DELAY => {
                if data.is_empty()
                    || !data.len().is_multiple_of(2)
                    || data.len() / 2 > MAX_VIEW_DELAYS
                {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!(
                            "length {} is not 1 ..= {MAX_VIEW_DELAYS} u16 values",
                            data.len()
                        ),
                    });
                }
                let mut out = Vec::with_capacity(data.len() / 2);
                while !c.rest.is_empty() {
                    let v = c.u16()?;
                    if v > MAX_VIEW_DELAY_MILLITICKS {
                        return Err(ExtError::BadPayload {
                            name,
                            reason: format!(
                                "{v} thousandths of a tick exceed {MAX_VIEW_DELAY_MILLITICKS}"
                            ),
                        });
                    }
                    out.push(v);
                }
                Ok(Ext::InputViewDelay(out))
            }
            tag::INPUT_REDUNDANCY => {
                let count = usize::from(c.u8()?);
                let same = c.u16()?;
                if count > MAX_REDUNDANT_INPUTS {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!("{count} inputs exceed {MAX_REDUNDANT_INPUTS}"),
                    });
                }
                if same >> count != 0 {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!("same-mask 0x{same:04x} names entries beyond {count}"),
                    });
                }
                let mut out = Vec::with_capacity(count);
                for i in 0..count {
                    if same & (1 << i) != 0 {
                        out.push(None);
                        continue;
                    }
                    out.push(Some(InputCopy {
                        buttons: c.u8()?,
                        art_buttons: c.u8()?,
                        selected_station: c.u8()?,
                        radar_mode: c.u8()?,
                        flaps: c.u8()?,
                        speedbrake: c.u8()?,
                        throttle: c.f32()?,
                        elevator: c.f32()?,
                        aileron: c.f32()?,
                        rudder: c.f32()?,
                    }));
                }
                exact(c, Ext::InputRedundancy(out))
            }
            tag::WEATHER_WIND_PROFILE => {
                let count = c.u8()?;
                let mut out = Vec::with_capacity(usize::from(count).min(c.rest.len() / 12));
                for _ in 0..count {
                    out.push(WindKnot {
                        alt_m: c.f32()?,
                        wind_x: c.f32()?,
                        wind_z: c.f32()?,
                    });
                }
                exact(c, Ext::WeatherWindProfile(out))
            }
            tag::WEATHER_EPOCH => {
                let v = c.u64()?;
                exact(c, Ext::WeatherEpoch(v))
            }
            tag::WEATHER_WINDOW_COPIES => {
                let count = usize::from(c.u8()?);
                if count > MAX_WEATHER_COPIES {
                    return Err(ExtError::BadPayload {
                        name,
                        reason: format!("{count} copies exceed {MAX_WEATHER_COPIES}"),
                    });
                }
                let mut out = Vec::with_capacity(count);
                for _ in 0..count {
                    let back_ticks = c.u16()?;
                    if back_ticks == 0 {
                        return Err(ExtError::BadPayload {
                            name,
                            reason: "a copy of the message's own window (back 0)".into(),
                        });
                    }
                    let wind_x = c.f32()?;
                    let wind_z = c.f32()?;
                    let turbulence_amp = c.f32()?;
                    let knots = c.u8()?;
                    // Bounded by the bytes actually present, not the claimed count.
                    let mut profile = Vec::with_capacity(usize::from(knots).min(c.rest.len() / 12));
                    for _ in 0..knots {
                        profile.push(WindKnot {
                            alt_m: c.f32()?,
                            wind_x: c.f32()?,
                            wind_z: c.f32()?,
                        });
                    }
                    out.push(WeatherWindowCopy {
                        back_ticks,
                        wind_x,
                        wind_z,
                        turbulence_amp,
                        profile,
                    });
                }
                exact(c, Ext::WeatherWindowCopies(out))
            }
            tag::CONNECT_SEAT_CLAIM => {
                let entity_idx = c.u32()?;
                let entity_gen = c.u32()?;
                let seat_index = c.u8()?;
                exact(
                    c,
                    Ext::ConnectSeatClaim {
                        entity_idx,
                        entity_gen,
                        seat_index,
                    },
                )
            }
            tag::CONNECT_IDENTITY => Ok(Ext::ConnectIdentity(text(
                name,
                data,
                0,
                MAX_IDENTITY_BYTES,
            )?)),
            tag::CONNECT_JOIN_PASSWORD => Ok(Ext::ConnectJoinPassword(text(
                name,
                data,
                1,
                MAX_JOIN_PASSWORD_BYTES,
            )?)),
            tag::HELLO_BUILD_VERSION => Ok(Ext::HelloBuildVersion(text(
                name,
                data,
                1,
                MAX_BUILD_VERSION_BYTES,
            )?)),
            _ => Err(ExtError::UnknownTag(tag_value)),
        }
    }

    /// Appends the payload bytes (not the entry header). Over-long strings are truncated on a
    /// character boundary to the tag's limit; counts above 255 are capped at 255 records.
    pub fn encode_payload(&self, out: &mut Vec<u8>) {
        match self {
            Ext::SnapshotPeerCount(v)
            | Ext::SnapshotPeerLatency(v)
            | Ext::SnapshotPeerDelayTicks(v) => out.extend_from_slice(&v.to_le_bytes()),
            Ext::SnapshotLastAckedSeqNum(v) => out.extend_from_slice(&v.to_le_bytes()),
            Ext::SnapshotDespawn(ids) => {
                for id in ids {
                    out.extend_from_slice(&id.to_le_bytes());
                }
            }
            Ext::SnapshotEffects(records) => {
                for r in records {
                    out.push(r.kind);
                    out.push(r.weapon_class);
                    out.extend_from_slice(&r.src_idx.to_le_bytes());
                    out.extend_from_slice(&r.tgt_idx.to_le_bytes());
                    for p in r.pos {
                        out.extend_from_slice(&p.to_le_bytes());
                    }
                }
            }
            Ext::SnapshotCrew(entries) => {
                let entries = &entries[..entries.len().min(255)];
                out.push(entries.len() as u8);
                for e in entries {
                    out.extend_from_slice(&e.entity_idx.to_le_bytes());
                    let turrets = &e.turrets[..e.turrets.len().min(255)];
                    out.push(turrets.len() as u8);
                    for (az, el) in turrets {
                        out.extend_from_slice(&az.to_le_bytes());
                        out.extend_from_slice(&el.to_le_bytes());
                    }
                }
            }
            Ext::SnapshotArticulation(entries) => {
                for e in entries {
                    out.extend_from_slice(&e.entity_idx.to_le_bytes());
                    out.extend_from_slice(&e.channel_mask.to_le_bytes());
                    // Exactly popcount(mask) values: pad with neutral zeros or cut extras.
                    let n = e.channel_mask.count_ones() as usize;
                    for i in 0..n {
                        out.push(e.values.get(i).copied().unwrap_or(0));
                    }
                }
            }
            Ext::SnapshotServerThrottle {
                load_pct,
                interval_ticks,
            } => {
                out.push(*load_pct);
                out.push(*interval_ticks);
            }
            Ext::SnapshotOwnState {
                entity_idx,
                entity_gen,
                format,
                words,
            } => {
                let words = &words[..words.len().min(MAX_OWN_STATE_WORDS)];
                out.extend_from_slice(&entity_idx.to_le_bytes());
                out.extend_from_slice(&entity_gen.to_le_bytes());
                out.extend_from_slice(&format.to_le_bytes());
                out.extend_from_slice(&(words.len() as u16).to_le_bytes());
                for w in words {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
            Ext::ConnectAckAuthority {
                caps,
                faction_index,
            } => {
                out.extend_from_slice(&caps.to_le_bytes());
                out.extend_from_slice(&faction_index.to_le_bytes());
            }
            Ext::ConnectAckTypesUnchanged => {}
            Ext::SnapshotInputTiming {
                target_lead,
                depth_ticks,
                queued,
            } => {
                out.extend_from_slice(&target_lead.to_le_bytes());
                out.push(*depth_ticks);
                out.push(*queued);
            }
            Ext::InputClockLead(v) => out.extend_from_slice(&v.to_le_bytes()),
            Ext::InputDesignate(v) => out.extend_from_slice(&v.to_le_bytes()),
            Ext::InputViewDelay(values) => {
                // An empty list would be refused: it is written as one delay of 0.
                let values = &values[..values.len().min(MAX_VIEW_DELAYS)];
                if values.is_empty() {
                    out.extend_from_slice(&0u16.to_le_bytes());
                }
                for v in values {
                    out.extend_from_slice(&(*v).min(MAX_VIEW_DELAY_MILLITICKS).to_le_bytes());
                }
            }
            Ext::InputRedundancy(copies) => {
                let copies = &copies[..copies.len().min(MAX_REDUNDANT_INPUTS)];
                out.push(copies.len() as u8);
                let same = copies
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.is_none())
                    .fold(0u16, |m, (i, _)| m | (1 << i));
                out.extend_from_slice(&same.to_le_bytes());
                for c in copies.iter().flatten() {
                    out.extend_from_slice(&[
                        c.buttons,
                        c.art_buttons,
                        c.selected_station,
                        c.radar_mode,
                        c.flaps,
                        c.speedbrake,
                    ]);
                    for f in [c.throttle, c.elevator, c.aileron, c.rudder] {
                        out.extend_from_slice(&f.to_le_bytes());
                    }
                }
            }
            Ext::WeatherWindProfile(knots) => {
                let knots = &knots[..knots.len().min(255)];
                out.push(knots.len() as u8);
                for k in knots {
                    out.extend_from_slice(&k.alt_m.to_le_bytes());
                    out.extend_from_slice(&k.wind_x.to_le_bytes());
                    out.extend_from_slice(&k.wind_z.to_le_bytes());
                }
            }
            Ext::WeatherEpoch(v) => out.extend_from_slice(&v.to_le_bytes()),
            Ext::WeatherWindowCopies(copies) => {
                let copies = &copies[..copies.len().min(MAX_WEATHER_COPIES)];
                out.push(copies.len() as u8);
                for w in copies {
                    // A back of 0 would be refused on decode; 1 is the nearest valid one.
                    out.extend_from_slice(&w.back_ticks.max(1).to_le_bytes());
                    for f in [w.wind_x, w.wind_z, w.turbulence_amp] {
                        out.extend_from_slice(&f.to_le_bytes());
                    }
                    let knots = &w.profile[..w.profile.len().min(255)];
                    out.push(knots.len() as u8);
                    for k in knots {
                        out.extend_from_slice(&k.alt_m.to_le_bytes());
                        out.extend_from_slice(&k.wind_x.to_le_bytes());
                        out.extend_from_slice(&k.wind_z.to_le_bytes());
                    }
                }
            }
            Ext::ConnectSeatClaim {
                entity_idx,
                entity_gen,
                seat_index,
            } => {
                out.extend_from_slice(&entity_idx.to_le_bytes());
                out.extend_from_slice(&entity_gen.to_le_bytes());
                out.push(*seat_index);
            }
            Ext::ConnectIdentity(s) => {
                out.extend_from_slice(truncate_utf8(s, MAX_IDENTITY_BYTES).as_bytes())
            }
            Ext::ConnectJoinPassword(s) => {
                out.extend_from_slice(truncate_utf8(s, MAX_JOIN_PASSWORD_BYTES).as_bytes())
            }
            Ext::HelloBuildVersion(s) => {
                out.extend_from_slice(truncate_utf8(s, MAX_BUILD_VERSION_BYTES).as_bytes())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tags_are_skipped_and_an_overrun_stops_the_scan() {
        let mut block = Vec::new();
        block.extend_from_slice(&[0x00, 0x01, 0x02, 0x00, 0x05, 0x00]); // PeerCount = 5
        block.extend_from_slice(&[0x34, 0x12, 0x01, 0x00, 0xAA]); // unknown 0x1234
        block.extend_from_slice(&[0x05, 0x01, 0x04, 0x00, 0x07, 0x00, 0x00, 0x00]); // LastAcked = 7
        block.extend_from_slice(&[0x03, 0x01, 0x10, 0x00, 0x01]); // Despawn claiming 16 bytes
        let ext = Extensions::parse(&block);
        let tags: Vec<u16> = ext.iter().map(|e| e.tag).collect();
        assert_eq!(tags, vec![0x0100, 0x1234, 0x0105]);
        assert_eq!(
            ext.get(tag::SNAPSHOT_PEER_COUNT),
            Some(Ext::SnapshotPeerCount(5))
        );
        assert_eq!(
            ext.get(tag::SNAPSHOT_LAST_ACKED_SEQ_NUM),
            Some(Ext::SnapshotLastAckedSeqNum(7))
        );
        assert_eq!(ext.find(tag::SNAPSHOT_DESPAWN), None);
        // The overrunning entry is dropped from the kept block.
        assert_eq!(ext.as_bytes().len(), 6 + 5 + 8);
    }

    #[test]
    fn fewer_than_four_trailing_bytes_end_the_block() {
        let ext = Extensions::parse(&[0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0xFF]);
        assert_eq!(ext.iter().count(), 1);
    }

    #[test]
    fn every_typed_tag_round_trips() {
        let samples = vec![
            Ext::SnapshotPeerCount(3),
            Ext::SnapshotPeerLatency(42),
            Ext::SnapshotPeerDelayTicks(5),
            Ext::SnapshotDespawn(vec![1, 0xFFFF_FFFF]),
            Ext::SnapshotEffects(vec![EffectRecord {
                kind: 2,
                weapon_class: 3,
                src_idx: 7,
                tgt_idx: 0xFFFF_FFFF,
                pos: [1.5, -2.0, 3.25],
            }]),
            Ext::SnapshotLastAckedSeqNum(99),
            Ext::SnapshotCrew(vec![CrewPose {
                entity_idx: 4,
                turrets: vec![(100, -200), (0, 32767)],
            }]),
            Ext::SnapshotArticulation(vec![ArticulationEntry {
                entity_idx: 9,
                channel_mask: 0b101,
                values: vec![255, 128],
            }]),
            Ext::SnapshotServerThrottle {
                load_pct: 80,
                interval_ticks: 3,
            },
            Ext::SnapshotOwnState {
                entity_idx: 3,
                entity_gen: 0x1_0002,
                format: OWN_STATE_FORMAT,
                words: vec![1.5, -0.0, 1e-300, 6.0],
            },
            Ext::ConnectAckAuthority {
                caps: 0x100,
                faction_index: 2,
            },
            Ext::ConnectAckTypesUnchanged,
            Ext::SnapshotInputTiming {
                target_lead: -2500,
                depth_ticks: 3,
                queued: 4,
            },
            Ext::InputRedundancy(vec![
                None,
                Some(InputCopy {
                    buttons: 3,
                    art_buttons: 1,
                    selected_station: 255,
                    radar_mode: 2,
                    flaps: 128,
                    speedbrake: 7,
                    throttle: 0.75,
                    elevator: -0.25,
                    aileron: 1.0,
                    rudder: -0.0,
                }),
                None,
            ]),
            Ext::InputClockLead(-1234),
            Ext::InputViewDelay(vec![2345, 3512, 0]),
            Ext::InputDesignate(7),
            Ext::InputDesignate(DESIGNATE_NONE),
            Ext::WeatherEpoch(1234),
            Ext::WeatherWindProfile(vec![WindKnot {
                alt_m: 1000.0,
                wind_x: 5.0,
                wind_z: -1.0,
            }]),
            Ext::WeatherWindowCopies(vec![
                WeatherWindowCopy {
                    back_ticks: 10,
                    wind_x: 3.5,
                    wind_z: -0.0,
                    turbulence_amp: 0.25,
                    profile: vec![WindKnot {
                        alt_m: 3000.0,
                        wind_x: 6.0,
                        wind_z: -2.0,
                    }],
                },
                WeatherWindowCopy {
                    back_ticks: 20,
                    wind_x: f32::MIN_POSITIVE,
                    wind_z: 1.0,
                    turbulence_amp: 0.0,
                    profile: Vec::new(),
                },
            ]),
            Ext::ConnectSeatClaim {
                entity_idx: 1,
                entity_gen: 2,
                seat_index: 1,
            },
            Ext::ConnectIdentity("0b7c4f4e-3a4e-4d8e-9f71-2d3b1c1e9a10".into()),
            Ext::ConnectJoinPassword("hunter2".into()),
            Ext::HelloBuildVersion("0.1.0".into()),
        ];
        let mut ext = Extensions::new();
        for s in &samples {
            ext.push(s).expect("fits");
        }
        let parsed = Extensions::parse(ext.as_bytes());
        let back: Vec<Ext> = parsed
            .iter()
            .map(|e| Ext::parse(e.tag, e.data).expect("well formed"))
            .collect();
        assert_eq!(back, samples);
    }

    #[test]
    fn hostile_counts_do_not_over_allocate_or_panic() {
        // Crew claims 255 entries but carries none.
        assert!(Ext::parse(tag::SNAPSHOT_CREW, &[255]).is_err());
        // Wind profile claims 255 knots in 3 bytes.
        assert!(Ext::parse(tag::WEATHER_WIND_PROFILE, &[255, 0, 0]).is_err());
        // Window copies: too many, a short entry, a copy claiming 255 knots with none, a copy
        // of the message's own window, trailing bytes.
        assert!(Ext::parse(tag::WEATHER_WINDOW_COPIES, &[9]).is_err());
        assert!(Ext::parse(tag::WEATHER_WINDOW_COPIES, &[1, 10, 0, 0]).is_err());
        let mut one = vec![1u8, 10, 0];
        one.extend_from_slice(&[0; 12]);
        one.push(255);
        assert!(Ext::parse(tag::WEATHER_WINDOW_COPIES, &one).is_err());
        one[15] = 0;
        assert!(Ext::parse(tag::WEATHER_WINDOW_COPIES, &one).is_ok());
        one.push(0);
        assert!(
            Ext::parse(tag::WEATHER_WINDOW_COPIES, &one).is_err(),
            "trailing"
        );
        one.pop();
        one[1] = 0;
        assert!(
            Ext::parse(tag::WEATHER_WINDOW_COPIES, &one).is_err(),
            "back 0"
        );
        assert_eq!(
            Ext::parse(tag::WEATHER_WINDOW_COPIES, &[0]),
            Ok(Ext::WeatherWindowCopies(Vec::new()))
        );
        // Articulation mask with 16 channels and no values.
        assert!(Ext::parse(tag::SNAPSHOT_ARTICULATION, &[0, 0, 0, 0, 0xFF, 0xFF]).is_err());
        assert!(Ext::parse(tag::SNAPSHOT_PEER_COUNT, &[1, 2, 3]).is_err());
        assert!(Ext::parse(tag::HELLO_BUILD_VERSION, &[]).is_err());
    }

    fn input(seq: u32, elevator: f32, buttons: u8) -> ClientInput {
        ClientInput {
            seq_num: seq,
            elevator,
            buttons,
            throttle: 0.5,
            tick_index: 77,
            camera_eye: [1.0, 2.0, 3.0],
            ..ClientInput::default()
        }
    }

    #[test]
    fn redundant_inputs_round_trip_exactly_and_repeat_only_changes() {
        let current = input(10, 0.3, 0);
        // Sent before it, newest first: 9 equals 10, 8 differs, 7 equals 8, 6 differs.
        let previous = [
            input(9, 0.3, 0),
            input(8, f32::from_bits(0x3e99_999a), 4),
            input(7, f32::from_bits(0x3e99_999a), 4),
            input(6, -0.0, 1),
        ];
        let ext = input_redundancy(&current, &previous);
        let Ext::InputRedundancy(copies) = &ext else {
            panic!("{ext:?}");
        };
        assert_eq!(
            copies.iter().map(Option::is_some).collect::<Vec<_>>(),
            [false, true, false, true]
        );
        let mut payload = Vec::new();
        ext.encode_payload(&mut payload);
        assert_eq!(payload.len(), 3 + 2 * INPUT_COPY_BYTES, "two full entries");
        let Ok(Ext::InputRedundancy(back)) = Ext::parse(tag::INPUT_REDUNDANCY, &payload) else {
            panic!("parses");
        };
        let expanded = expand_redundancy(&current, &back);
        assert_eq!(expanded.len(), 4);
        for (e, p) in expanded.iter().zip(&previous) {
            assert_eq!(e.seq_num, p.seq_num);
            assert_eq!(InputCopy::of(e), InputCopy::of(p));
            assert_eq!(
                e.elevator.to_bits(),
                p.elevator.to_bits(),
                "-0.0 stays -0.0"
            );
            assert_eq!((e.tick_index, e.camera_eye), (77, [1.0, 2.0, 3.0]));
        }
        // Sequence numbers wrap.
        let wrapped = expand_redundancy(&input(0, 0.0, 0), &[None, None]);
        assert_eq!(
            wrapped.iter().map(|i| i.seq_num).collect::<Vec<_>>(),
            [u32::MAX, u32::MAX - 1]
        );
        // More than fifteen are cut on encode and on expansion.
        let many: Vec<ClientInput> = (0..40).map(|s| input(100 - s, s as f32, 0)).collect();
        let Ext::InputRedundancy(c) = input_redundancy(&input(101, 9.0, 0), &many) else {
            panic!();
        };
        assert_eq!(c.len(), MAX_REDUNDANT_INPUTS);
        assert_eq!(
            expand_redundancy(&input(101, 9.0, 0), &vec![None; 40]).len(),
            MAX_REDUNDANT_INPUTS
        );
    }

    #[test]
    fn hostile_redundancy_is_refused_without_panicking() {
        // Count beyond the maximum.
        assert!(Ext::parse(tag::INPUT_REDUNDANCY, &[16, 0xFF, 0xFF]).is_err());
        // A same-mask bit beyond the count.
        assert!(Ext::parse(tag::INPUT_REDUNDANCY, &[1, 0x03, 0x00]).is_err());
        // A full entry claimed but missing; trailing bytes; a missing mask.
        assert!(Ext::parse(tag::INPUT_REDUNDANCY, &[1, 0, 0, 1, 2, 3]).is_err());
        assert!(Ext::parse(tag::INPUT_REDUNDANCY, &[1, 1, 0, 9]).is_err());
        assert!(Ext::parse(tag::INPUT_REDUNDANCY, &[0]).is_err());
        assert_eq!(
            Ext::parse(tag::INPUT_REDUNDANCY, &[2, 3, 0]),
            Ok(Ext::InputRedundancy(vec![None, None]))
        );
        assert!(Ext::parse(tag::INPUT_CLOCK_LEAD, &[1, 2, 3]).is_err());
        assert!(Ext::parse(tag::SNAPSHOT_INPUT_TIMING, &[1, 2, 3, 4, 5]).is_err());
        assert_eq!(ticks_to_milliticks(f64::NAN), 0);
        assert_eq!(ticks_to_milliticks(1e300), i32::MAX);
        assert_eq!(ticks_to_milliticks(-2.5), -2500);
        assert_eq!(milliticks_to_ticks(-2500), -2.5);
    }

    #[test]
    fn input_designate_is_four_bytes_exactly() {
        let parse = |b: &[u8]| Ext::parse(tag::INPUT_DESIGNATE, b);
        // docs/protocol.md's worked example: entity 7.
        assert_eq!(parse(&[0x07, 0x00, 0x00, 0x00]), Ok(Ext::InputDesignate(7)));
        assert_eq!(
            parse(&[0xFF, 0xFF, 0xFF, 0xFF]),
            Ok(Ext::InputDesignate(DESIGNATE_NONE))
        );
        assert!(parse(&[]).is_err());
        assert!(parse(&[7, 0, 0]).is_err());
        assert!(parse(&[7, 0, 0, 0, 0]).is_err());
        let mut ext = Extensions::new();
        ext.push(&Ext::InputDesignate(0x0102_0304)).expect("fits");
        assert_eq!(
            ext.get(tag::INPUT_DESIGNATE),
            Some(Ext::InputDesignate(0x0102_0304))
        );
    }

    #[test]
    fn hostile_view_delays_are_refused_and_the_encoder_saturates() {
        let parse = |b: &[u8]| Ext::parse(tag::INPUT_VIEW_DELAY, b);
        assert_eq!(parse(&[0x10, 0x27]), Ok(Ext::InputViewDelay(vec![10_000])));
        let max = MAX_VIEW_DELAY_MILLITICKS.to_le_bytes();
        assert_eq!(
            parse(&max),
            Ok(Ext::InputViewDelay(vec![MAX_VIEW_DELAY_MILLITICKS]))
        );
        let sixteen: Vec<u8> = (0..MAX_VIEW_DELAYS).flat_map(|_| [1, 0]).collect();
        assert_eq!(
            parse(&sixteen),
            Ok(Ext::InputViewDelay(vec![1; MAX_VIEW_DELAYS]))
        );
        // Absurd: more than a second of interpolation delay, in any position.
        assert!(parse(&(MAX_VIEW_DELAY_MILLITICKS + 1).to_le_bytes()).is_err());
        assert!(parse(&[0xFF, 0xFF]).is_err());
        assert!(parse(&[1, 0, 0xFF, 0xFF]).is_err());
        // Wrong lengths: none, odd, more values than an input and its copies.
        assert!(parse(&[]).is_err());
        assert!(parse(&[1]).is_err());
        assert!(parse(&[1, 0, 0]).is_err());
        let seventeen: Vec<u8> = (0..=MAX_VIEW_DELAYS).flat_map(|_| [1, 0]).collect();
        assert!(parse(&seventeen).is_err());
        // A refused entry reads as absent, like an unknown one.
        let mut ext = Extensions::new();
        ext.push_raw(tag::INPUT_VIEW_DELAY, &[0xFF, 0xFF])
            .expect("fits");
        assert_eq!(ext.get(tag::INPUT_VIEW_DELAY), None);
        // The encoder never writes what the decoder refuses.
        for values in [vec![u16::MAX, 7], vec![], vec![3; 40]] {
            let mut payload = Vec::new();
            Ext::InputViewDelay(values.clone()).encode_payload(&mut payload);
            let Ok(Ext::InputViewDelay(back)) = parse(&payload) else {
                panic!("{values:?} re-parses");
            };
            assert!(!back.is_empty() && back.len() <= MAX_VIEW_DELAYS);
            assert!(back.iter().all(|&v| v <= MAX_VIEW_DELAY_MILLITICKS));
        }
        assert_eq!(view_delay_to_wire(2.5), 2500);
        assert_eq!(
            view_delay_to_wire(-0.4),
            0,
            "drawn ahead of the newest snapshot"
        );
        assert_eq!(view_delay_to_wire(f64::NAN), 0);
        assert_eq!(view_delay_to_wire(1e9), MAX_VIEW_DELAY_MILLITICKS);
        assert_eq!(view_delay_ticks(2500), 2.5);
    }

    #[test]
    fn turret_angle_quantization() {
        use std::f64::consts::PI;
        assert_eq!(quantize_turret_angle(PI, PI), 32767);
        assert_eq!(quantize_turret_angle(-10.0, PI), -32767);
        assert_eq!(quantize_turret_angle(f64::NAN, PI), 0);
        let a = dequantize_turret_angle(quantize_turret_angle(0.5, PI / 2.0), PI / 2.0);
        assert!((a - 0.5).abs() < PI / 2.0 / 32767.0);
    }
}
