//! The connect handshake: `MsgHello`, `MsgConnectRequest` (+ `PackManifestEntry`),
//! `MsgConnectAck` (+ `MsgEntityTypeDef`), `MsgConnectRefusal` and `MsgMotd`.

use crate::enums::{ConnectRefusalCode, ObjectCategory, PeerRole, ProjectileKind};
use crate::field::{FieldError, FixedStr, Source, Visitor, WireField, truncate_utf8};
use crate::ids::{MsgId, PROTOCOL_VERSION};
use crate::layout::wire_struct;
use crate::msg::{RecordSource, Reflect, WireMessage, check_len, counted_message, fixed_message};
use crate::{DecodeError, EncodeError};

wire_struct! {
    /// Server → client, first message on every connection.
    pub struct Hello ("MsgHello", 4) {
        @0 msgId = 0x00;
        @1 reserved pad 1;
        /// The server's protocol version; a client disconnects on mismatch.
        @2 protocolVersion protocol_version: u16;
    }
}

impl Hello {
    /// A hello carrying this crate's protocol version.
    pub fn current() -> Self {
        Self {
            protocol_version: PROTOCOL_VERSION,
        }
    }
}

wire_struct! {
    /// Client → server join request, followed by `packCount` manifest records and a TLV block.
    pub struct ConnectRequest ("MsgConnectRequest", 104) {
        @0 msgId = 0x11;
        @1 requestedRole requested_role: PeerRole;
        @2 protocolVersion protocol_version: u16;
        @4 packCount count u16;
        @6 reserved pad 2;
        /// Type id to fly; empty = the server's default.
        @8 requestedEntityType requested_entity_type: FixedStr<64>;
        /// Display callsign; the server sanitises it (empty → `Pilot`) and makes it unique.
        @72 callsign callsign: FixedStr<32>;
    }
    extra {
        /// Mounted content packs.
        pub packs: Vec<PackManifestEntry>,
    }
}

wire_struct! {
    /// One mounted content pack in a `MsgConnectRequest`.
    pub struct PackManifestEntry ("PackManifestEntry", 128) {
        @0 id id: FixedStr<64>;
        @64 version version: FixedStr<32>;
        /// Reserved: all zero until pack hashing lands.
        @96 contentHash content_hash: [u8; 32];
    }
}

counted_message!(ConnectRequest => ConnectRequest, packs: PackManifestEntry,
    count "packCount" u16, max u16::MAX as usize);

wire_struct! {
    /// Server → client admission: granted role and entity, followed by `typeCount` type
    /// records and a TLV block.
    pub struct ConnectAck ("MsgConnectAck", 24) {
        @0 msgId = 0x01;
        @1 tickRateHz tick_rate_hz: u8;
        @2 typeCount count u16;
        /// Pool slot of the peer's entity (0 = none).
        @4 assignedEntityIdx assigned_entity_idx: u32;
        /// Entity generation (0 = no entity assigned).
        @8 assignedEntityGen assigned_entity_gen: u32;
        @12 planetRadiusKm planet_radius_km: f32;
        @16 grantedRole granted_role: PeerRole;
        @17 reserved2 pad 3;
        /// This peer's own transport peer id.
        @20 peerId peer_id: u32;
    }
    extra {
        /// The entity type registry (empty with `ConnectAckTypesUnchanged`).
        pub types: Vec<EntityTypeDef>,
    }
}

wire_struct! {
    /// One registered entity type, appended after `MsgConnectAck`.
    pub struct EntityTypeDef ("MsgEntityTypeDef", 380) {
        @0 typeIndex type_index: u32;
        @4 id id: FixedStr<64>;
        @68 mesh mesh: FixedStr<64>;
        @132 dmgMesh dmg_mesh: FixedStr<64>;
        /// Flight-model asset name; empty = the builtin model.
        @196 flightModel flight_model: FixedStr<64>;
        @260 payloadMassKg payload_mass_kg: f32;
        @264 payloadCd0 payload_cd0: f32;
        @268 name name: FixedStr<64>;
        @332 category category: ObjectCategory;
        @333 projectileKind projectile_kind: ProjectileKind;
        @334 reservedCat pad 2;
        @336 deckLengthM deck_length_m: f32;
        @340 deckWidthM deck_width_m: f32;
        @344 deckHeightM deck_height_m: f32;
        @348 meshVariant mesh_variant: FixedStr<32>;
    }
}

counted_message!(ConnectAck => ConnectAck, types: EntityTypeDef,
    count "typeCount" u16, max u16::MAX as usize);

/// The `planetRadiusKm` field for a planet of `radius_m` metres (an f32 of kilometres).
pub fn planet_radius_km_on_wire(radius_m: f64) -> f32 {
    (radius_m / 1000.0) as f32
}

/// The planet radius, in metres, that the `planetRadiusKm` field `km` stands for. The spec
/// carries the radius only as f32 kilometres, so this — not the server's configured f64 — is
/// the radius both sides simulate on: the server rounds its world's radius through the field
/// ([`planet_radius_on_wire`]) and the client widens the field it receives, and the two agree
/// bit for bit.
pub fn planet_radius_m_from_wire(km: f32) -> f64 {
    f64::from(km) * 1000.0
}

/// `radius_m` rounded to what `MsgConnectAck` can announce (a fixed point: rounding twice
/// changes nothing).
pub fn planet_radius_on_wire(radius_m: f64) -> f64 {
    planet_radius_m_from_wire(planet_radius_km_on_wire(radius_m))
}

impl ConnectAck {
    /// The announced planet radius in metres (see [`planet_radius_m_from_wire`]).
    pub fn planet_radius_m(&self) -> f64 {
        planet_radius_m_from_wire(self.planet_radius_km)
    }
}

wire_struct! {
    /// Server → client rejection, sent before the disconnect.
    pub struct ConnectRefusal ("MsgConnectRefusal", 64) {
        @0 msgId = 0x09;
        @1 code code: ConnectRefusalCode;
        @2 reason reason: FixedStr<62>;
    }
}

fixed_message!(Hello => Hello, ConnectRefusal => ConnectRefusal);

/// Longest MOTD text (`kMaxMotdBytes`, terminator excluded).
pub const MAX_MOTD_BYTES: usize = 65535;

/// Server → client message of the day: a 4-byte header then NUL-terminated UTF-8.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Motd {
    /// Banner duration in seconds; 0 = the client's own setting.
    pub display_seconds: u16,
    /// The text (at most [`MAX_MOTD_BYTES`]; longer text is truncated when encoded).
    pub text: String,
}

/// Reads NUL-terminated text starting at `start`; returns the text and the offset after the
/// terminator (or the end of the packet when there is none). Longer than `max` is an error.
pub(crate) fn read_terminated_text(
    msg: &'static str,
    bytes: &[u8],
    start: usize,
    max: usize,
) -> Result<(String, usize), DecodeError> {
    let rest = &bytes[start.min(bytes.len())..];
    let (len, next) = match rest.iter().position(|&b| b == 0) {
        Some(nul) => (nul, start + nul + 1),
        None => (rest.len(), bytes.len()),
    };
    if len > max {
        return Err(DecodeError::malformed(
            msg,
            format!("text of {len} bytes exceeds the maximum of {max}"),
        ));
    }
    Ok((String::from_utf8_lossy(&rest[..len]).into_owned(), next))
}

/// Appends `text` cut at its first NUL and truncated on a char boundary to `max`, then a NUL.
pub(crate) fn write_terminated_text(out: &mut Vec<u8>, text: &str, max: usize) {
    let text = text.split('\0').next().unwrap_or_default();
    out.extend_from_slice(truncate_utf8(text, max).as_bytes());
    out.push(0);
}

impl WireMessage for Motd {
    const ID: MsgId = MsgId::Motd;
    fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
        check_len("MsgMotd", bytes, 4)?;
        let display_seconds = u16::from_le_bytes([bytes[2], bytes[3]]);
        let (text, next) = read_terminated_text("MsgMotd", bytes, 4, MAX_MOTD_BYTES)?;
        Ok((
            Motd {
                display_seconds,
                text,
            },
            next,
        ))
    }
    fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&[MsgId::Motd.to_u8(), 0]);
        out.extend_from_slice(&self.display_seconds.to_le_bytes());
        write_terminated_text(out, &self.text, MAX_MOTD_BYTES);
        Ok(())
    }
}

impl Reflect for Motd {
    fn visit_fields(&self, visitor: &mut dyn Visitor) {
        visitor.uint("displaySeconds", u64::from(self.display_seconds));
        visitor.text("text", &self.text);
    }
    fn build(fields: &mut dyn Source, _records: &mut dyn RecordSource) -> Result<Self, FieldError> {
        Ok(Motd {
            display_seconds: u16::build("displaySeconds", fields)?,
            text: fields.text("text")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_planet_radius_is_a_fixed_point() {
        // The server simulates on the rounded radius and announces it again: the announcement
        // must carry the same f32, and the client must widen it to the same f64.
        let mut r = 1234.5678_f64;
        while r < 1e12 {
            for radius in [r, r * 1.000_000_1, 6_371_000.3, 600_123.4] {
                let on_wire = planet_radius_on_wire(radius);
                let km = planet_radius_km_on_wire(on_wire);
                assert_eq!(km.to_bits(), planet_radius_km_on_wire(radius).to_bits());
                assert_eq!(
                    planet_radius_m_from_wire(km).to_bits(),
                    on_wire.to_bits(),
                    "{radius}"
                );
                assert_eq!(planet_radius_on_wire(on_wire).to_bits(), on_wire.to_bits());
            }
            r *= 1.37;
        }
        assert_eq!(planet_radius_on_wire(6_371_000.0), 6_371_000.0);
        assert_eq!(planet_radius_on_wire(6_371_000.3), 6_371_000.488_281_25);
    }
}
