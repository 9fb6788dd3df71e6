//! Crewed aircraft: `MsgCrewRoster` (+ `CrewRosterSeat`), `MsgSeatRequest`, `MsgSeatResult`.

use crate::enums::{SeatOccupancy, SeatResultCode};
use crate::field::FixedStr;
use crate::layout::wire_struct;
use crate::msg::{counted_message, fixed_message};

/// `MsgSeatRequest::flags` bit: vacate the current seat.
pub const SEAT_REQUEST_FLAG_LEAVE: u8 = 0x01;

wire_struct! {
    /// Server → client: one crewed aircraft's seats.
    pub struct CrewRoster ("MsgCrewRoster", 12) {
        @0 msgId = 0x13;
        @1 seatCount count u8;
        /// Turret mounts (sizes the client's pose arrays).
        @2 turretCount turret_count: u8;
        @3 reserved pad 1;
        @4 entityIdx entity_idx: u32;
        @8 entityGen entity_gen: u32;
    }
    extra {
        pub seats: Vec<CrewRosterSeat>,
    }
}

wire_struct! {
    /// One seat of a `MsgCrewRoster`.
    pub struct CrewRosterSeat ("CrewRosterSeat", 44) {
        @0 seatIndex seat_index: u8;
        @1 occupancy occupancy: SeatOccupancy;
        /// `enums::crew_capability` bits.
        @2 capabilities capabilities: u16;
        /// Human peer id, else 0xFFFFFFFF.
        @4 occupantPeerId occupant_peer_id: u32;
        @8 skillPct skill_pct: u8;
        /// 255 = none.
        @9 turretIndex turret_index: u8;
        @10 knockedOut knocked_out: u8;
        @11 reserved pad 1;
        @12 role role: FixedStr<32>;
    }
}

counted_message!(CrewRoster => CrewRoster, seats: CrewRosterSeat,
    count "seatCount" u8, max u8::MAX as usize);

wire_struct! {
    /// Client → server: claim a non-fly seat, or leave the current one.
    pub struct SeatRequest ("MsgSeatRequest", 12) {
        @0 msgId = 0x14;
        /// `SEAT_REQUEST_FLAG_LEAVE`.
        @1 flags flags: u8;
        @2 seatIndex seat_index: u8;
        @3 reserved pad 1;
        @4 entityIdx entity_idx: u32;
        @8 entityGen entity_gen: u32;
    }
}

wire_struct! {
    /// Server → client outcome of a seat request (echoes the target).
    pub struct SeatResult ("MsgSeatResult", 12) {
        @0 msgId = 0x15;
        @1 code code: SeatResultCode;
        @2 seatIndex seat_index: u8;
        @3 reserved pad 1;
        @4 entityIdx entity_idx: u32;
        @8 entityGen entity_gen: u32;
    }
}

fixed_message!(SeatRequest => SeatRequest, SeatResult => SeatResult);
