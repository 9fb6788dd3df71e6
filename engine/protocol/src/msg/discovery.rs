//! Raw-UDP discovery outside the game transport: `MsgLanBeacon` (102 bytes, with its 78-byte
//! legacy prefix accepted), `MsgServerQuery` and `MsgServerInfo` (208 bytes, 184-byte legacy
//! prefix accepted).

use crate::field::{FieldError, FixedStr, Source, Visitor, WireField};
use crate::ids::MsgId;
use crate::layout::{Counts, Fixed, push_fixed, wire_struct};
use crate::msg::{RecordSource, Reflect, WireMessage, decode_fixed, fixed_message};
use crate::{DecodeError, EncodeError};

/// Bytes of the `build` field both messages tail-append.
pub const BUILD_VERSION_BYTES: usize = 24;

wire_struct! {
    /// Server → LAN presence broadcast. The fixed part here is the 78-byte legacy prefix; the
    /// `build` tail is present only when the datagram carries it.
    pub struct LanBeacon ("MsgLanBeacon", 78) {
        @0 msgId = 0x40;
        @1 reserved pad 1;
        @2 protocolVersion protocol_version: u16;
        /// The game port to connect to.
        @4 gamePort game_port: u16;
        @6 playerCount player_count: u8;
        @7 maxPlayers max_players: u8;
        /// `enums::game_mode` bits.
        @8 gameModeFlags game_mode_flags: u8;
        @9 reserved2 pad 1;
        /// Seconds to shutdown when shutting down; 0 = n/a.
        @10 shutdownSeconds shutdown_seconds: u16;
        /// Info-query port; 0 = disabled.
        @12 queryPort query_port: u16;
        @14 name name: FixedStr<64>;
    }
    extra {
        /// Build version (`None` in a legacy 78-byte beacon; empty = not advertised).
        pub build: Option<FixedStr<24>>,
    }
}

wire_struct! {
    /// Client → server info request on the query port (padded against amplification).
    pub struct ServerQuery ("MsgServerQuery", 208) {
        @0 msgId = 0x41;
        @1 reserved pad 1;
        @2 protocolVersion protocol_version: u16;
        /// Client-chosen, echoed.
        @4 nonce nonce: u32;
        /// Client clock in ms, echoed verbatim (for a ping column).
        @8 clientTimeMs client_time_ms: u64;
        @16 pad pad 192;
    }
}

wire_struct! {
    /// Server → client reply to a query. The fixed part is the 184-byte legacy prefix.
    pub struct ServerInfo ("MsgServerInfo", 184) {
        @0 msgId = 0x42;
        @1 gameModeFlags game_mode_flags: u8;
        @2 protocolVersion protocol_version: u16;
        @4 nonce nonce: u32;
        @8 clientTimeMs client_time_ms: u64;
        @16 gamePort game_port: u16;
        @18 shutdownSeconds shutdown_seconds: u16;
        @20 playerCount player_count: u8;
        @21 maxPlayers max_players: u8;
        @22 reserved pad 2;
        @24 name name: FixedStr<64>;
        @88 modeId mode_id: FixedStr<32>;
        @120 mission mission: FixedStr<64>;
    }
    extra {
        /// Build version (`None` in a legacy 184-byte reply).
        pub build: Option<FixedStr<24>>,
    }
}

fixed_message!(ServerQuery => ServerQuery);

/// Implements the codec for a fixed legacy prefix plus an optional `build` tail.
macro_rules! build_tail_message {
    ($T:ident => $Id:ident) => {
        impl WireMessage for $T {
            const ID: MsgId = MsgId::$Id;
            fn decode_body(bytes: &[u8]) -> Result<(Self, usize), DecodeError> {
                let (mut m, _) = decode_fixed::<$T>(bytes)?;
                let full = Self::SIZE + BUILD_VERSION_BYTES;
                if bytes.len() >= full {
                    m.build = Some(FixedStr::from_wire(&bytes[Self::SIZE..full]));
                    Ok((m, full))
                } else {
                    // A legacy datagram (or a torn tail, which carries nothing usable).
                    Ok((m, bytes.len()))
                }
            }
            fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                push_fixed(out, self, &Counts::default());
                if let Some(build) = &self.build {
                    let start = out.len();
                    out.resize(start + BUILD_VERSION_BYTES, 0);
                    build.write(&mut out[start..]);
                }
                Ok(())
            }
        }

        impl Reflect for $T {
            fn visit_fields(&self, visitor: &mut dyn Visitor) {
                self.visit_fixed(visitor, &Counts::default());
                if let Some(build) = &self.build {
                    visitor.text("build", build);
                }
            }
            fn build(
                fields: &mut dyn Source,
                _records: &mut dyn RecordSource,
            ) -> Result<Self, FieldError> {
                let (mut m, _) = Self::build_fixed(fields)?;
                m.build = fields.optional_text("build")?.map(|s| FixedStr::new(&s));
                Ok(m)
            }
        }
    };
}

build_tail_message!(LanBeacon => LanBeacon);
build_tail_message!(ServerInfo => ServerInfo);
