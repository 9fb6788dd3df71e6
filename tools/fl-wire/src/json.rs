//! JSON ⇄ field adapters: a [`Visitor`] that collects a message's fields into a JSON object,
//! and a [`Source`] that reads them back (missing fields read as zero/empty, unknown keys are
//! reported by [`JsonSource::finish`]). Floats that JSON cannot hold travel as strings.

use fl_protocol::field::{FieldError, Source, Visitor};
use serde_json::{Map, Number, Value};
use std::collections::BTreeSet;

/// A 64-bit float as JSON: shortest round-trip digits; NaN and infinities as strings
/// (`"NaN"`, `"Infinity"`, `"-Infinity"`; a NaN with other bits as `"NaN:0x<16 hex digits>"`).
pub fn f64_value(v: f64) -> Value {
    if let Some(n) = Number::from_f64(v) {
        return Value::Number(n);
    }
    non_finite(
        v.is_nan(),
        v > 0.0,
        v.to_bits() == f64::NAN.to_bits(),
        || format!("NaN:0x{:016x}", v.to_bits()),
    )
}

/// A 32-bit float as JSON: the shortest digits that round-trip the f32 (so `0.1`, not
/// `0.10000000149011612`); NaN bits as `"NaN:0x<8 hex digits>"`.
pub fn f32_value(v: f32) -> Value {
    if v.is_finite() {
        let n = format!("{v}")
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64);
        return n.map_or(Value::Null, Value::Number);
    }
    non_finite(
        v.is_nan(),
        v > 0.0,
        v.to_bits() == f32::NAN.to_bits(),
        || format!("NaN:0x{:08x}", v.to_bits()),
    )
}

fn non_finite(nan: bool, positive: bool, canonical: bool, bits: impl Fn() -> String) -> Value {
    Value::String(if !nan {
        if positive { "Infinity" } else { "-Infinity" }.into()
    } else if canonical {
        "NaN".into()
    } else {
        bits()
    })
}

enum Special {
    NaN,
    Inf,
    NegInf,
    Bits(u64, usize),
}

fn special(name: &str, v: &Value) -> Result<Option<Special>, FieldError> {
    let Value::String(s) = v else {
        return match v {
            Value::Number(_) => Ok(None),
            _ => Err(FieldError::Other(format!("{name}: expected a number"))),
        };
    };
    Ok(Some(match s.as_str() {
        "NaN" => Special::NaN,
        "Infinity" => Special::Inf,
        "-Infinity" => Special::NegInf,
        other => {
            let hex = other
                .strip_prefix("NaN:0x")
                .ok_or_else(|| FieldError::Other(format!("{name}: \"{other}\" is not a float")))?;
            let bits = u64::from_str_radix(hex, 16)
                .map_err(|_| FieldError::Other(format!("{name}: bad NaN bits \"{other}\"")))?;
            Special::Bits(bits, hex.len())
        }
    }))
}

/// Reads a 64-bit float written by [`f64_value`] (or any JSON number).
pub fn parse_f64(name: &str, v: &Value) -> Result<f64, FieldError> {
    match special(name, v)? {
        None => v
            .as_f64()
            .ok_or_else(|| FieldError::Other(format!("{name}: {v} is not a float"))),
        Some(Special::NaN) => Ok(f64::NAN),
        Some(Special::Inf) => Ok(f64::INFINITY),
        Some(Special::NegInf) => Ok(f64::NEG_INFINITY),
        Some(Special::Bits(bits, 16)) if f64::from_bits(bits).is_nan() => Ok(f64::from_bits(bits)),
        Some(Special::Bits(..)) => Err(FieldError::Other(format!(
            "{name}: NaN bits of a double need 16 hex digits of a NaN"
        ))),
    }
}

/// Reads a 32-bit float written by [`f32_value`] (or any JSON number, rounded to f32).
pub fn parse_f32(name: &str, v: &Value) -> Result<f32, FieldError> {
    match special(name, v)? {
        // Narrowing is the point: the wire field is a 32-bit float.
        None => parse_f64(name, v).map(|f| f as f32),
        Some(Special::NaN) => Ok(f32::NAN),
        Some(Special::Inf) => Ok(f32::INFINITY),
        Some(Special::NegInf) => Ok(f32::NEG_INFINITY),
        Some(Special::Bits(bits, 8)) if f32::from_bits(bits as u32).is_nan() => {
            Ok(f32::from_bits(bits as u32))
        }
        Some(Special::Bits(..)) => Err(FieldError::Other(format!(
            "{name}: NaN bits of a float need 8 hex digits of a NaN"
        ))),
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Parses hex, ignoring whitespace and an optional `0x` prefix.
pub fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let clean: String = text.split_whitespace().collect();
    let clean = clean.strip_prefix("0x").unwrap_or(&clean);
    if !clean.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", clean.len()));
    }
    (0..clean.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&clean[i..i + 2], 16)
                .map_err(|_| format!("not hex at digit {i}: {:?}", &clean[i..i + 2]))
        })
        .collect()
}

/// Collects visited fields into a JSON object.
#[derive(Debug, Default)]
pub struct JsonFields(pub Map<String, Value>);

impl Visitor for JsonFields {
    fn uint(&mut self, name: &'static str, value: u64) {
        self.0.insert(name.into(), Value::from(value));
    }
    fn int(&mut self, name: &'static str, value: i64) {
        self.0.insert(name.into(), Value::from(value));
    }
    fn float64(&mut self, name: &'static str, value: f64) {
        self.0.insert(name.into(), f64_value(value));
    }
    fn float32(&mut self, name: &'static str, value: f32) {
        self.0.insert(name.into(), f32_value(value));
    }
    fn floats64(&mut self, name: &'static str, values: &[f64]) {
        let arr = values.iter().map(|&v| f64_value(v)).collect();
        self.0.insert(name.into(), Value::Array(arr));
    }
    fn floats32(&mut self, name: &'static str, values: &[f32]) {
        let arr = values.iter().map(|&v| f32_value(v)).collect();
        self.0.insert(name.into(), Value::Array(arr));
    }
    fn text(&mut self, name: &'static str, value: &str) {
        self.0.insert(name.into(), Value::String(value.into()));
    }
    fn bytes(&mut self, name: &'static str, value: &[u8]) {
        self.0.insert(name.into(), Value::String(hex(value)));
    }
    fn flag(&mut self, name: &'static str, value: bool) {
        self.0.insert(name.into(), Value::Bool(value));
    }
}

/// Reads fields from a JSON object, remembering which keys were used.
#[derive(Debug)]
pub struct JsonSource<'a> {
    map: Option<&'a Map<String, Value>>,
    used: BTreeSet<String>,
}

impl<'a> JsonSource<'a> {
    /// A source over `value`, which must be an object (or absent: every field empty).
    pub fn new(value: Option<&'a Value>, what: &str) -> Result<Self, String> {
        let map = match value {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(format!("{what} must be a JSON object")),
        };
        Ok(Self {
            map,
            used: BTreeSet::new(),
        })
    }

    /// The value of `name`, also accepting the spec tables' array spelling (`id[64]`,
    /// `viewAxis[3]`) for tools that copy the Field column verbatim.
    fn get(&mut self, name: &str) -> Option<&'a Value> {
        self.used.insert(name.to_owned());
        let map = self.map?;
        if let Some(v) = map.get(name) {
            return Some(v).filter(|v| !v.is_null());
        }
        let (key, v) = map.iter().find(|(k, _)| {
            k.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('[') && rest.ends_with(']'))
        })?;
        self.used.insert(key.clone());
        Some(v).filter(|v| !v.is_null())
    }

    fn float_array<T: Default + Copy>(
        &mut self,
        name: &'static str,
        out: &mut [T],
        parse: fn(&str, &Value) -> Result<T, FieldError>,
    ) -> Result<(), FieldError> {
        let Some(v) = self.get(name) else {
            out.fill(T::default());
            return Ok(());
        };
        let arr = v
            .as_array()
            .filter(|a| a.len() == out.len())
            .ok_or_else(|| wrong(name, &format!("an array of {} numbers", out.len()), v))?;
        for (slot, item) in out.iter_mut().zip(arr) {
            *slot = parse(name, item)?;
        }
        Ok(())
    }

    /// Whether the object has a key (without marking it used).
    pub fn has(&self, name: &str) -> bool {
        self.map.is_some_and(|m| m.contains_key(name))
    }

    /// Errors on keys no field asked for (a misspelt field must not be silently zero).
    pub fn finish(&self, what: &str) -> Result<(), String> {
        if let Some(m) = self.map {
            let unknown: Vec<&str> = m
                .keys()
                .filter(|k| !self.used.contains(k.as_str()))
                .map(String::as_str)
                .collect();
            if !unknown.is_empty() {
                return Err(format!("{what}: unknown field(s) {}", unknown.join(", ")));
            }
        }
        Ok(())
    }
}

fn wrong(name: &str, expected: &str, got: &Value) -> FieldError {
    FieldError::Other(format!("{name}: expected {expected}, got {got}"))
}

impl Source for JsonSource<'_> {
    fn uint(&mut self, name: &'static str, max: u64) -> Result<u64, FieldError> {
        match self.get(name) {
            None => Ok(0),
            Some(v) => v
                .as_u64()
                .filter(|&n| n <= max)
                .ok_or_else(|| wrong(name, &format!("an unsigned integer ≤ {max}"), v)),
        }
    }
    fn int(&mut self, name: &'static str, min: i64, max: i64) -> Result<i64, FieldError> {
        match self.get(name) {
            None => Ok(0),
            Some(v) => v
                .as_i64()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| wrong(name, &format!("an integer in {min}..={max}"), v)),
        }
    }
    fn float64(&mut self, name: &'static str) -> Result<f64, FieldError> {
        self.get(name).map_or(Ok(0.0), |v| parse_f64(name, v))
    }
    fn float32(&mut self, name: &'static str) -> Result<f32, FieldError> {
        self.get(name).map_or(Ok(0.0), |v| parse_f32(name, v))
    }
    fn floats64(&mut self, name: &'static str, out: &mut [f64]) -> Result<(), FieldError> {
        self.float_array(name, out, parse_f64)
    }
    fn floats32(&mut self, name: &'static str, out: &mut [f32]) -> Result<(), FieldError> {
        self.float_array(name, out, parse_f32)
    }
    fn text(&mut self, name: &'static str) -> Result<String, FieldError> {
        match self.get(name) {
            None => Ok(String::new()),
            Some(v) => v
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| wrong(name, "a string", v)),
        }
    }
    fn optional_text(&mut self, name: &'static str) -> Result<Option<String>, FieldError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_owned()))
                .ok_or_else(|| wrong(name, "a string", v)),
        }
    }
    fn bytes(&mut self, name: &'static str, out: &mut [u8]) -> Result<(), FieldError> {
        out.fill(0);
        let data = self.blob(name, out.len())?;
        out[..data.len()].copy_from_slice(&data);
        Ok(())
    }
    fn blob(&mut self, name: &'static str, max: usize) -> Result<Vec<u8>, FieldError> {
        let Some(v) = self.get(name) else {
            return Ok(Vec::new());
        };
        let text = v.as_str().ok_or_else(|| wrong(name, "a hex string", v))?;
        let data = unhex(text).map_err(|e| FieldError::Other(format!("{name}: {e}")))?;
        if data.len() > max {
            return Err(FieldError::Other(format!(
                "{name}: {} bytes exceed the field's {max}",
                data.len()
            )));
        }
        Ok(data)
    }
    fn flag(&mut self, name: &'static str) -> Result<bool, FieldError> {
        match self.get(name) {
            None => Ok(false),
            Some(v) => v.as_bool().ok_or_else(|| wrong(name, "true or false", v)),
        }
    }
    fn count(&mut self, name: &'static str) -> Result<Option<u64>, FieldError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| wrong(name, "an unsigned integer", v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_survive_json() {
        for v in [0.1f32, -3.25, 1e-30, f32::MAX, f32::MIN_POSITIVE, f32::NAN] {
            let back = parse_f32("x", &f32_value(v)).expect("parses");
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
        assert_eq!(f32_value(0.1).to_string(), "0.1");
        // A signalling NaN keeps its exact bits through JSON.
        let snan = f32::from_bits(0x7f96_d061);
        assert_eq!(f32_value(snan), Value::String("NaN:0x7f96d061".into()));
        assert_eq!(
            parse_f32("x", &f32_value(snan)).expect("parses").to_bits(),
            0x7f96_d061
        );
        for v in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::from_bits(0x7ff0_0000_0000_0001),
        ] {
            let back = parse_f64("x", &f64_value(v)).expect("parses");
            assert_eq!(back.to_bits(), v.to_bits());
        }
        assert!(parse_f32("x", &Value::String("NaN:0x00000001".into())).is_err());
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(unhex("0x00 ff\n10").expect("hex"), vec![0, 255, 16]);
        assert!(unhex("abc").is_err());
        assert!(unhex("zz").is_err());
        assert_eq!(hex(&[0, 171]), "00ab");
    }
}
