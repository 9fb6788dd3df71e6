//! fl-wire — the packet inspector's library: one wire message ⇄ one JSON object.
//!
//! Shape: `{"msg": <spec MsgId name>, "fields": {<spec field name>: value}, "records": [...],
//! "origins": [[x, y, z]] (snapshots), "ext": [{"tag", "name", "value" | "raw"}]}`. Reserved
//! bytes are omitted on decode and zero on encode; strings are JSON strings; byte arrays are
//! hex strings; snapshot records carry SI values (absolute position, orientation `[x,y,z,w]`,
//! velocity, omega) that encoding quantizes. Decoding then encoding gives back the same bytes
//! for every well-formed uncompressed packet.

pub mod json;
mod snapshot;
mod tlv;

use fl_protocol::field::Source;
use fl_protocol::msg::RecordSource;
use fl_protocol::{Message, MsgId, Packet};
use json::{JsonFields, JsonSource};
use serde_json::{Map, Value, json};

/// A failure of decoding or encoding, with a message fit for an operator. The codec's own
/// error is the `source` (print the chain: anyhow's `{:#}`), never repeated in the text.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("cannot decode the packet")]
    Decode(#[from] fl_protocol::DecodeError),
    #[error("cannot encode the packet")]
    Encode(#[from] fl_protocol::EncodeError),
    #[error("JSON: {0}")]
    Json(String),
}

fn jerr(e: impl std::fmt::Display) -> WireError {
    WireError::Json(e.to_string())
}

/// Decodes one packet into the JSON shape.
pub fn decode_to_json(bytes: &[u8]) -> Result<Value, WireError> {
    if bytes.first() == Some(&MsgId::WorldSnapshot.to_u8()) {
        return snapshot::decode(bytes);
    }
    let packet = Packet::decode(bytes)?;
    let mut fields = JsonFields::default();
    packet.message.visit_fields(&mut fields);
    let records: Vec<Value> = (0..packet.message.record_count())
        .map(|i| {
            let mut r = JsonFields::default();
            packet.message.visit_record(i, &mut r);
            Value::Object(r.0)
        })
        .collect();
    Ok(json!({
        "msg": packet.message.id().name(),
        "fields": Value::Object(fields.0),
        "records": records,
        "ext": tlv::to_json(&packet.ext),
    }))
}

/// Encodes the JSON shape into one packet.
pub fn encode_from_json(value: &Value) -> Result<Vec<u8>, WireError> {
    let obj = value
        .as_object()
        .ok_or_else(|| jerr("the input must be a JSON object"))?;
    check_keys(
        obj,
        &["msg", "fields", "records", "origins", "ext"],
        "top level",
    )?;
    let name = obj
        .get("msg")
        .and_then(Value::as_str)
        .ok_or_else(|| jerr("\"msg\" must name a message, e.g. \"ConnectAck\""))?;
    let id = MsgId::from_name(name).ok_or_else(|| jerr(format!("unknown message \"{name}\"")))?;
    let ext = tlv::from_json(obj.get("ext"))?;
    if id == MsgId::WorldSnapshot {
        return snapshot::encode(obj, &ext);
    }
    if obj.contains_key("origins") {
        return Err(jerr("\"origins\" belongs to WorldSnapshot only"));
    }
    let mut fields = JsonSource::new(obj.get("fields"), "fields").map_err(jerr)?;
    let mut records = JsonRecords::new(obj.get("records"))?;
    let message =
        Message::build(id, &mut fields, &mut records).map_err(|e| jerr(format!("{name}: {e}")))?;
    fields.finish(&format!("{name}.fields")).map_err(jerr)?;
    records.finish(name)?;
    Ok(Packet { message, ext }.encode()?)
}

pub(crate) fn check_keys(
    obj: &Map<String, Value>,
    allowed: &[&str],
    what: &str,
) -> Result<(), WireError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(jerr(format!("{what}: unknown key \"{k}\""))),
        None => Ok(()),
    }
}

/// The `records` array as a record source.
struct JsonRecords<'a> {
    sources: Vec<JsonSource<'a>>,
    /// Answers for an index past the end (the builders never ask, but must not panic).
    empty: JsonSource<'a>,
}

impl<'a> JsonRecords<'a> {
    fn new(value: Option<&'a Value>) -> Result<Self, WireError> {
        let items: &[Value] = match value {
            None | Some(Value::Null) => &[],
            Some(Value::Array(a)) => a,
            Some(_) => return Err(jerr("\"records\" must be an array")),
        };
        let sources = items
            .iter()
            .enumerate()
            .map(|(i, v)| JsonSource::new(Some(v), &format!("records[{i}]")))
            .collect::<Result<_, _>>()
            .map_err(jerr)?;
        let empty = JsonSource::new(None, "record").map_err(jerr)?;
        Ok(Self { sources, empty })
    }

    fn finish(&self, name: &str) -> Result<(), WireError> {
        for (i, s) in self.sources.iter().enumerate() {
            s.finish(&format!("{name}.records[{i}]")).map_err(jerr)?;
        }
        Ok(())
    }
}

impl RecordSource for JsonRecords<'_> {
    fn len(&self) -> usize {
        self.sources.len()
    }
    fn record(&mut self, i: usize) -> &mut dyn Source {
        match self.sources.get_mut(i) {
            Some(s) => s,
            None => &mut self.empty,
        }
    }
    fn record_has(&self, i: usize, name: &str) -> bool {
        self.sources.get(i).is_some_and(|s| s.has(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codec_error_is_said_once_in_the_chain() {
        let e = decode_to_json(&[0xFF]).expect_err("no such message id");
        let cause = std::error::Error::source(&e)
            .expect("the codec's error")
            .to_string();
        // As the fl-wire binary prints it: anyhow's alternate form, every layer once.
        let text = format!("{:#}", anyhow::Error::new(e));
        assert_eq!(text.matches(&cause).count(), 1, "{text}");
        assert!(text.starts_with("cannot decode the packet: "), "{text}");
    }
}
