//! The invariants each fuzz target checks, one function per decoder family, shared by the
//! libFuzzer targets (`cargo fuzz run <family>`) and the stable smoke runner that CI runs.
//! A violated invariant panics: that is the finding. Families: the protocol's decoders, fl-wire,
//! the QUIC transport's own framing and reassembly, and the TOML/content loaders.

use fl_protocol::snapshot::SnapshotDecoder;
use fl_protocol::tlv::{Ext, Extensions};
use fl_protocol::{MsgId, Packet};
use std::path::Path;

/// A decoder family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `Packet::decode` on any bytes: never panics; whatever decodes re-encodes to a packet
    /// that decodes to the same value.
    DecodePacket,
    /// The snapshot codec (header, origins, bit stream, zstd body): same invariants, plus the
    /// header-only read agrees with the full decode.
    DecodeSnapshot,
    /// The TLV block: iteration terminates, typed parses of well-formed entries re-encode to
    /// the same payload.
    ParseTlv,
    /// fl-wire: arbitrary JSON text never panics the encoder; bytes that decode to JSON encode
    /// back to the same bytes (uncompressed).
    WireJson,
    /// The QUIC reliable stream (magic, length-checked frames): never panics, accepted frames
    /// re-encode to the bytes they came from.
    QuicStream,
    /// QUIC datagrams and fragment reassembly: parsing never panics, reassembly stays within its
    /// memory and message limits whatever arrives, and this side's split reassembles exactly.
    QuicDatagrams,
    /// fl-toml: any text, every getter on every key of every table (nested), then the
    /// unknown-key pass: never panics, every reported line lies inside the text.
    TomlRead,
    /// fl-flight: flight-model text parsed, validated and, when valid, built into a model;
    /// never panics, errors and warnings carry lines inside the text.
    FlightModel,
    /// fl-content: a manifest, an entity and a weapon definition from the same bytes; never
    /// panics, every error names a line inside the text.
    ContentDefs,
    /// `MsgClientInput` with its input TLVs (`InputRedundancy`, `InputClockLead`,
    /// `InputViewDelay`), decoded and expanded as the server does: never panics, at most 15
    /// copies, consecutive sequence numbers below the message's own, re-encoding reproduces the
    /// copies, view delays that parse are 1–16 values within their bound.
    ClientInput,
}

impl Family {
    pub const ALL: [Family; 10] = [
        Family::DecodePacket,
        Family::DecodeSnapshot,
        Family::ParseTlv,
        Family::WireJson,
        Family::QuicStream,
        Family::QuicDatagrams,
        Family::TomlRead,
        Family::FlightModel,
        Family::ContentDefs,
        Family::ClientInput,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::DecodePacket => "decode_packet",
            Family::DecodeSnapshot => "decode_snapshot",
            Family::ParseTlv => "parse_tlv",
            Family::WireJson => "wire_json",
            Family::QuicStream => "quic_stream",
            Family::QuicDatagrams => "quic_datagrams",
            Family::TomlRead => "toml_read",
            Family::FlightModel => "flight_model",
            Family::ContentDefs => "content_defs",
            Family::ClientInput => "client_input",
        }
    }

    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Runs the family's invariants on one input.
    pub fn check(self, data: &[u8]) {
        match self {
            Family::DecodePacket => check_packet(data),
            Family::DecodeSnapshot => check_snapshot(data),
            Family::ParseTlv => check_tlv(data),
            Family::WireJson => check_wire_json(data),
            Family::QuicStream => fl_net::quic::fuzzing::fuzz_stream(data),
            Family::QuicDatagrams => fl_net::quic::fuzzing::fuzz_datagrams(data),
            Family::TomlRead => check_toml_read(data),
            Family::FlightModel => check_flight_model(data),
            Family::ContentDefs => check_content_defs(data),
            Family::ClientInput => check_client_input(data),
        }
    }

    /// Valid inputs to start mutating from.
    pub fn seeds(self) -> Vec<Vec<u8>> {
        use fl_protocol::testing::{random_extensions, random_message, random_snapshot};
        match self {
            Family::DecodePacket | Family::WireJson => MsgId::ALL
                .iter()
                .flat_map(|&id| (0..4u64).map(move |s| (id, s)))
                .filter_map(|(id, s)| Packet::new(random_message(id, s)).encode().ok())
                .chain(weather_tlv_seeds().into_iter().filter_map(|block| {
                    // A MsgWeatherState with its TLVs, as the server broadcasts it.
                    let mut p = Packet::new(random_message(MsgId::WeatherState, 0));
                    p.ext = Extensions::parse(&block);
                    p.encode().ok()
                }))
                .collect(),
            Family::DecodeSnapshot => (0..24u64)
                .filter_map(|s| {
                    let mut p = Packet::new(random_snapshot(s));
                    p.ext = random_extensions(s);
                    p.encode().ok()
                })
                .collect(),
            Family::ParseTlv => (0..24u64)
                .map(|s| random_extensions(s).as_bytes().to_vec())
                .chain(weather_tlv_seeds())
                .chain(view_delay_tlv_seeds())
                .collect(),
            Family::QuicStream => quic_stream_seeds(),
            Family::QuicDatagrams => quic_datagram_seeds(),
            Family::TomlRead | Family::FlightModel | Family::ContentDefs => toml_seeds(),
            Family::ClientInput => client_input_seeds(),
        }
    }
}

fn quic_stream_seeds() -> Vec<Vec<u8>> {
    let frame = |p: &[u8]| {
        let mut f = (p.len() as u32).to_le_bytes().to_vec();
        f.extend_from_slice(p);
        f
    };
    let mut out = Vec::new();
    for s in 0..8u64 {
        let mut b = b"FLR\x01".to_vec();
        for id in MsgId::ALL.iter().skip(s as usize * 3).take(3) {
            if let Ok(p) = Packet::new(fl_protocol::testing::random_message(*id, s)).encode() {
                b.extend_from_slice(&frame(&p));
            }
        }
        out.push(b);
    }
    out
}

fn quic_datagram_seeds() -> Vec<Vec<u8>> {
    // Records of [length][ms since the previous][datagram]: whole datagrams of both lanes and
    // fragments (header: flags 0x81/0x82, id u16 LE, index, count).
    let mut out = Vec::new();
    for s in 0..8u8 {
        let mut b = vec![s.wrapping_mul(37)];
        let mut record = |d: &[u8], dt: u8| {
            b.push(d.len() as u8);
            b.push(dt);
            b.extend_from_slice(d);
        };
        record(&[0x01, 1, 2, 3], 0);
        record(&[0x02, s, s, s, s], 5);
        for i in 0..3u8 {
            let mut f = vec![0x81, s, 0, i, 3];
            f.extend(std::iter::repeat_n(i ^ s, 20 + usize::from(s)));
            record(&f, 30 * (i % 2));
        }
        out.push(b);
    }
    out
}

fn toml_seeds() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = fl_content::example::example_pack_files("seed-pack", "seed", "jet")
        .into_iter()
        .map(|(_, text)| text.into_bytes())
        .collect();
    out.extend(
        fl_content::builtin::FILES
            .iter()
            .map(|f| f.text.as_bytes().to_vec()),
    );
    out.push(
        fl_content::builtin::JET_TRAINER_EXPECT_TOML
            .as_bytes()
            .to_vec(),
    );
    out.push(
        b"[weapon]\nid = \"seed:aim9\"\nname = \"AIM-9\"\ntype = \"missile\"\n\
          category = \"air-to-air\"\n"
            .to_vec(),
    );
    // A weapon and a sensor that load, so mutations start inside every table.
    out.push(
        b"[weapon]\nid = \"seed:gun\"\nname = \"Gun\"\ntype = \"gun\"\n\
          [seeker]\ntype = \"ir\"\nsensor_id = \"seed:eye\"\npitbull_nm = 0\n\
          [performance]\nmax_range_nm = 0.6\nmax_speed_kts = 1950\nrate_of_fire_rpm = 1200\n\
          [warhead]\nblast_radius_ft = 3\ndamage = 8\n[countermeasures]\nflare_susceptibility = 0.5\n\
          [load]\nweight_lb = 300\nrounds = 500\n"
            .to_vec(),
    );
    out.push(
        b"[sensor]\nid = \"seed:eye\"\nname = \"Eye\"\ntype = \"radar\"\neccm = 0.3\n\
          [search]\naz_half_angle_deg = 60\nel_half_angle_deg = 30\nmax_range_nm = 30\npod = 0.35\n\
          [track]\naz_half_angle_deg = 50\nel_half_angle_deg = 20\nmax_range_nm = 20\npod = 0.7\nlock_hold_s = 4\n"
            .to_vec(),
    );
    out
}

/// The number of the last line of `text` (a line reported beyond it is a finding).
fn last_line(text: &str) -> usize {
    text.matches('\n').count() + 1
}

/// Diagnostics that keep just the line of each error and warning, to check them.
#[derive(Debug)]
struct Lines;

impl fl_toml::Diagnostics for Lines {
    type Error = usize;
    type Warning = usize;
    fn syntax(_: &Path, line: usize, _: String) -> usize {
        line
    }
    fn invalid(_: &Path, line: usize, _: &str, _: String) -> usize {
        line
    }
    fn warning(_: &Path, line: usize, _: &str, _: String) -> usize {
        line
    }
}

fn check_toml_read(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let last = last_line(text);
    let mut src = fl_toml::Source::<Lines>::new(Path::new("fuzz.toml"), text);
    let doc = match src.parse(text) {
        Ok(doc) => doc,
        Err(line) => {
            assert!(
                (1..=last).contains(&line),
                "syntax error at line {line} of {last}"
            );
            return;
        }
    };
    let mut errors = Vec::new();
    let mut root = fl_toml::Table::root(doc.as_table());
    walk_toml(&mut root, &src, 0, &mut errors);
    root.finish(&mut src);
    let mut lines = errors;
    lines.extend(src.warnings.iter().copied());
    lines.extend(src.take_key_lines().into_iter().map(|(_, l)| l));
    for l in lines {
        assert!(l <= last, "line {l} reported in a text of {last} lines");
    }
}

/// Every getter on every key, into every sub-table (depth-bounded; TOML nesting is bounded by
/// the text anyway).
fn walk_toml(
    t: &mut fl_toml::Table<'_>,
    src: &fl_toml::Source<'_, Lines>,
    depth: usize,
    errors: &mut Vec<usize>,
) {
    for key in t.keys() {
        let mut note = |r: Result<(), usize>| {
            if let Err(l) = r {
                errors.push(l);
            }
        };
        note(t.str(src, &key).map(drop));
        note(t.f64(src, &key).map(drop));
        note(t.int(src, &key).map(drop));
        note(t.bool(src, &key).map(drop));
        note(t.str_array(src, &key, 64).map(drop));
        note(t.f64_array(src, &key, 64).map(drop));
        if depth < 8 {
            match t.table(src, &key) {
                Ok(Some(mut sub)) => walk_toml(&mut sub, src, depth + 1, errors),
                Ok(None) => {}
                Err(l) => errors.push(l),
            }
            match t.tables(src, &key, 16) {
                Ok(subs) => {
                    for mut sub in subs {
                        walk_toml(&mut sub, src, depth + 1, errors);
                    }
                }
                Err(l) => errors.push(l),
            }
        }
    }
}

fn check_flight_model(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let last = last_line(text);
    match fl_flight::schema::parse_flight_model(Path::new("fuzz.toml"), text) {
        Ok(parsed) => {
            for f in fl_flight::validate::validate(&parsed.value) {
                let _ = f.to_string();
            }
            // A model that builds must be finite where the integrator will read it.
            if let Ok(model) = fl_flight::AircraftModel::from_def(&parsed.value) {
                let m = model.mass(0.0, 0.0);
                assert!(!m.is_nan(), "a built model has a NaN empty mass");
            }
        }
        Err(e) => {
            let text_of_error = e.to_string();
            assert!(!text_of_error.is_empty());
            if let Some(line) = schema_error_line(&e) {
                assert!(line <= last, "line {line} of {last}: {text_of_error}");
            }
        }
    }
}

fn schema_error_line(e: &fl_flight::schema::SchemaError) -> Option<usize> {
    use fl_flight::schema::SchemaError;
    match e {
        SchemaError::Syntax { line, .. } | SchemaError::Invalid { line, .. } => Some(*line),
        _ => None,
    }
}

fn check_content_defs(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let last = last_line(text);
    let check = |e: fl_content::ContentError| {
        let shown = e.to_string();
        if let Some(line) = content_error_line(&e) {
            assert!(line <= last, "line {line} of {last}: {shown}");
        }
    };
    if let Err(e) = fl_content::manifest::parse_manifest(Path::new("manifest.toml"), text) {
        check(e);
    }
    if let Err(e) = fl_content::entity::parse_entity_text(Path::new("e.toml"), text, "p", "ns") {
        check(e);
    }
    if let Err(e) = fl_content::defs::parse_weapon_text(Path::new("w.toml"), text, "p", "ns") {
        check(e);
    }
    if let Err(e) = fl_content::defs::parse_sensor_text(Path::new("s.toml"), text, "p", "ns") {
        check(e);
    }
}

fn content_error_line(e: &fl_content::ContentError) -> Option<usize> {
    use fl_content::ContentError;
    match e {
        ContentError::Syntax { line, .. }
        | ContentError::Invalid { line, .. }
        | ContentError::BadName { line, .. } => Some(*line),
        _ => None,
    }
}

fn check_packet(data: &[u8]) {
    if let Ok(p) = Packet::decode(data) {
        let bytes = p.encode().expect("a decoded packet must re-encode");
        let again = Packet::decode(&bytes).expect("a re-encoded packet must decode");
        // Compared as bytes: a NaN float field is never equal to itself as a value.
        let twice = again.encode().expect("and re-encode");
        assert_eq!(
            twice, bytes,
            "decode ∘ encode must be the identity on decoded values"
        );
    }
}

fn check_snapshot(data: &[u8]) {
    let mut bytes = data.to_vec();
    if let Some(first) = bytes.first_mut() {
        *first = MsgId::WorldSnapshot.to_u8();
    }
    let header = SnapshotDecoder::header(&bytes);
    let full = SnapshotDecoder::new().decode(&bytes);
    if let Ok((h, _, _)) = &full {
        assert_eq!(header.as_ref().ok(), Some(h), "header-only read must agree");
    }
    check_packet(&bytes);
}

/// TLV blocks as a `MsgWeatherState` carries them: the wind profile, the epoch and the copies
/// of the windows announced before it (0–3 copies, 0–4 knots each).
fn weather_tlv_seeds() -> Vec<Vec<u8>> {
    use fl_protocol::tlv::{WeatherWindowCopy, WindKnot};
    let knots = |n: u16, f: f32| -> Vec<WindKnot> {
        (0..n)
            .map(|i| WindKnot {
                alt_m: f32::from(i) * 3000.0,
                wind_x: f + f32::from(i),
                wind_z: -f,
            })
            .collect()
    };
    (0..6u16)
        .map(|s| {
            let mut ext = Extensions::new();
            let _ = ext.push(&Ext::WeatherWindProfile(knots(s % 4, 2.5)));
            let _ = ext.push(&Ext::WeatherEpoch(600 + u64::from(s) * 10));
            let copies = (1..=s % 4)
                .map(|k| WeatherWindowCopy {
                    back_ticks: k * 10,
                    wind_x: f32::from(k),
                    wind_z: -0.5,
                    turbulence_amp: 0.2 * f32::from(s),
                    profile: knots((s + k) % 5, f32::from(k)),
                })
                .collect();
            let _ = ext.push(&Ext::WeatherWindowCopies(copies));
            ext.as_bytes().to_vec()
        })
        .collect()
}

/// `InputViewDelay` blocks: none, a typical delay, the bound, one past it (refused), and a
/// delay for the input and each of three copies.
fn view_delay_tlv_seeds() -> Vec<Vec<u8>> {
    use fl_protocol::tlv::{MAX_VIEW_DELAY_MILLITICKS, tag};
    let m = MAX_VIEW_DELAY_MILLITICKS;
    [
        vec![0],
        vec![2500],
        vec![m],
        vec![m + 1],
        vec![2500, 3100, 4000, 5200],
    ]
    .iter()
    .map(|values| {
        let bytes: Vec<u8> = values.iter().flat_map(|v: &u16| v.to_le_bytes()).collect();
        let mut ext = Extensions::new();
        let _ = ext.push_raw(tag::INPUT_VIEW_DELAY, &bytes);
        ext.as_bytes().to_vec()
    })
    .collect()
}

fn client_input_seeds() -> Vec<Vec<u8>> {
    use fl_protocol::msg::world::ClientInput;
    use fl_protocol::tlv::input_redundancy;
    let input = |seq: u32, elevator: f32, buttons: u8| ClientInput {
        protocol_version: fl_protocol::PROTOCOL_VERSION,
        seq_num: seq,
        elevator,
        buttons,
        throttle: 0.8,
        ..ClientInput::default()
    };
    (0..8u32)
        .filter_map(|s| {
            let current = input(100 + s, s as f32 / 8.0, s as u8);
            let previous: Vec<ClientInput> = (0..s.min(5))
                .map(|i| input(99 + s - i, (s - i % 2) as f32 / 8.0, (s - i % 2) as u8))
                .collect();
            let mut p = Packet::new(fl_protocol::Message::from(current.clone()));
            let _ = p.ext.push(&input_redundancy(&current, &previous));
            let _ = p.ext.push(&Ext::InputClockLead(s as i32 * 731 - 2000));
            // Interpolation delays from none to the bound (s = 7), for lag compensation: one
            // for the input and one per copy, a tick apart.
            let own = u32::from(fl_protocol::tlv::MAX_VIEW_DELAY_MILLITICKS) * s / 7;
            let delays = (0..=previous.len() as u32)
                .map(|i| (own + 1000 * i).min(60_000) as u16)
                .collect();
            let _ = p.ext.push(&Ext::InputViewDelay(delays));
            // A designation on every other seed (entity s, or none).
            if s % 2 == 0 {
                let target = if s == 6 {
                    fl_protocol::tlv::DESIGNATE_NONE
                } else {
                    s
                };
                let _ = p.ext.push(&Ext::InputDesignate(target));
            }
            p.encode().ok()
        })
        .collect()
}

fn check_client_input(data: &[u8]) {
    use fl_protocol::tlv::{MAX_REDUNDANT_INPUTS, expand_redundancy, tag};
    let mut bytes = data.to_vec();
    if let Some(first) = bytes.first_mut() {
        *first = MsgId::ClientInput.to_u8();
    }
    check_packet(&bytes);
    let Ok(p) = Packet::decode(&bytes) else {
        return;
    };
    let fl_protocol::Message::ClientInput(input) = &p.message else {
        return;
    };
    if let Some(Ext::InputRedundancy(copies)) = p.ext.get(tag::INPUT_REDUNDANCY) {
        assert!(copies.len() <= MAX_REDUNDANT_INPUTS, "bounded count");
        let expanded = expand_redundancy(input, &copies);
        assert_eq!(expanded.len(), copies.len());
        for (i, e) in expanded.iter().enumerate() {
            assert_eq!(
                e.seq_num,
                input.seq_num.wrapping_sub(i as u32 + 1),
                "consecutive sequence numbers below the carrier's"
            );
            assert_eq!(e.tick_index, input.tick_index, "the carrier's ack stamp");
        }
        // The expanded copies re-encode to copies that expand to the same inputs.
        let again = fl_protocol::tlv::input_redundancy(input, &expanded);
        let Ext::InputRedundancy(again) = again else {
            panic!("input_redundancy builds an InputRedundancy");
        };
        let twice = expand_redundancy(input, &again);
        let bits = |v: &[fl_protocol::msg::world::ClientInput]| {
            v.iter()
                .map(|c| fl_protocol::Message::from(c.clone()).encode().ok())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&twice), bits(&expanded), "copies survive re-encoding");
    }
    if let Some(Ext::InputClockLead(v)) = p.ext.get(tag::INPUT_CLOCK_LEAD) {
        assert!(fl_protocol::tlv::milliticks_to_ticks(v).is_finite());
    }
    if let Some(Ext::InputDesignate(v)) = p.ext.get(tag::INPUT_DESIGNATE) {
        // Any u32 decodes; re-encoding gives the same four bytes.
        let mut again = Extensions::new();
        assert!(again.push(&Ext::InputDesignate(v)).is_ok());
        assert_eq!(
            again.get(tag::INPUT_DESIGNATE),
            Some(Ext::InputDesignate(v)),
            "a designation survives re-encoding"
        );
    }
    if let Some(Ext::InputViewDelay(v)) = p.ext.get(tag::INPUT_VIEW_DELAY) {
        assert!(!v.is_empty() && v.len() <= fl_protocol::tlv::MAX_VIEW_DELAYS);
        assert!(
            v.iter()
                .all(|&d| d <= fl_protocol::tlv::MAX_VIEW_DELAY_MILLITICKS),
            "bounded view delays"
        );
    }
}

fn check_tlv(data: &[u8]) {
    let ext = Extensions::parse(data);
    assert!(ext.as_bytes().len() <= data.len());
    assert_eq!(
        &data[..ext.as_bytes().len()],
        ext.as_bytes(),
        "the kept block is a prefix"
    );
    for entry in ext.iter() {
        if let Ok(typed) = Ext::parse(entry.tag, entry.data) {
            if let Ext::WeatherWindowCopies(copies) = &typed {
                assert!(copies.len() <= fl_protocol::tlv::MAX_WEATHER_COPIES);
                assert!(copies.iter().all(|c| c.back_ticks > 0));
            }
            let mut payload = Vec::new();
            typed.encode_payload(&mut payload);
            let back = Ext::parse(entry.tag, &payload).expect("a typed entry re-parses");
            let mut again = Vec::new();
            back.encode_payload(&mut again);
            assert_eq!(
                again, payload,
                "a typed entry re-encodes to the same payload"
            );
        }
    }
}

fn check_wire_json(data: &[u8]) {
    // As JSON text: the encoder must fail cleanly, never panic.
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = fl_wire::encode_from_json(&value);
    }
    // As bytes: decodable uncompressed packets survive JSON unchanged, when canonical.
    let Ok(packet) = Packet::decode(data) else {
        return;
    };
    if let fl_protocol::Message::WorldSnapshot(s) = &packet.message
        && s.flags & fl_protocol::snapshot::FLAG_COMPRESSED != 0
    {
        return;
    }
    let Ok(canonical) = packet.encode() else {
        return;
    };
    let json = fl_wire::decode_to_json(&canonical).expect("canonical bytes decode to JSON");
    let text = serde_json::to_string(&json).expect("JSON serialises");
    let reparsed: serde_json::Value = serde_json::from_str(&text).expect("and parses");
    let back = fl_wire::encode_from_json(&reparsed).expect("decoded JSON encodes");
    assert_eq!(back, canonical, "JSON must round-trip canonical bytes");
}

/// A deterministic mutator for the smoke runner (libFuzzer brings its own).
#[derive(Debug, Clone)]
pub struct Mutator {
    rng: fl_protocol::testing::Rng,
}

impl Mutator {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: fl_protocol::testing::Rng::new(seed),
        }
    }

    /// A mutated copy of `input` (one to four edits).
    pub fn mutate(&mut self, input: &[u8], splice: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        for _ in 0..=self.rng.upto(3) {
            let len = out.len();
            match self.rng.upto(7) {
                0 if len > 0 => {
                    let i = self.rng.upto(len as u64 - 1) as usize;
                    out[i] ^= 1 << self.rng.upto(7);
                }
                1 if len > 0 => {
                    let i = self.rng.upto(len as u64 - 1) as usize;
                    const INTERESTING: [u8; 6] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE];
                    out[i] = INTERESTING[self.rng.upto(5) as usize];
                }
                2 => out.truncate(self.rng.upto(len as u64) as usize),
                3 => {
                    let i = self.rng.upto(len as u64) as usize;
                    let b = self.rng.next_u64() as u8;
                    out.insert(i, b);
                }
                4 if len > 1 => {
                    let i = self.rng.upto(len as u64 - 1) as usize;
                    let n = (self.rng.upto(8) as usize).min(len - i);
                    out.drain(i..i + n);
                }
                5 if !splice.is_empty() => {
                    let i = self.rng.upto(len as u64) as usize;
                    let j = self.rng.upto(splice.len() as u64 - 1) as usize;
                    out.truncate(i);
                    out.extend_from_slice(&splice[j..]);
                }
                6 if len >= 4 => {
                    // Overwrite a little-endian length/count with a large or edge value.
                    let i = self.rng.upto(len as u64 - 2) as usize;
                    let v: u16 = [0xFFFF, 0x8000, 0x0100, 0][self.rng.upto(3) as usize];
                    out[i..i + 2].copy_from_slice(&v.to_le_bytes());
                }
                _ => {
                    let b = self.rng.next_u64() as u8;
                    out.push(b);
                }
            }
        }
        out
    }
}
