//! JSON ⇄ field adapters: a [`Visitor`] that collects a message's fields into a JSON object,
//! and a [`Source`] that reads them back (missing fields read as zero/empty, unknown keys are
//! reported by [`JsonSource::finish`]). Floats that JSON cannot hold travel as strings.

use fl_protocol::field::{FieldError, Source, Visitor};
use serde_json::{Map, Number, Value};
use std::collections::BTreeSet;

/// A float as JSON: shortest round-trip digits for its wire width; NaN and infinities as
/// strings (`"NaN"`, `"Infinity"`, `"-Infinity"`; a NaN with a non-default payload as
/// `"NaN:0x…"` with its bits).
pub fn float_value(v: f64, single: bool) -> Value {
    if v.is_finite() {
        let n = if single {
            // The shortest decimal that round-trips the f32, carried as the nearest f64.
            format!("{}", v as f32)
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
        } else {
            Number::from_f64(v)
        };
        return n.map_or(Value::Null, Value::Number);
    }
    if v.is_nan() {
        let canonical = if single {
            (v as f32).to_bits() == f32::NAN.to_bits()
        } else {
            v.to_bits() == f64::NAN.to_bits()
        };
        return Value::String(if canonical {
            "NaN".into()
        } else if single {
            format!("NaN:0x{:08x}", (v as f32).to_bits())
        } else {
            format!("NaN:0x{:016x}", v.to_bits())
        });
    }
    Value::String(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
}

/// Reads a float written by [`float_value`] (or any JSON number).
pub fn parse_float(name: &str, v: &Value) -> Result<f64, FieldError> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| FieldError::Other(format!("{name}: {n} is not a float"))),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            other => {
                let hex = other.strip_prefix("NaN:0x").ok_or_else(|| {
                    FieldError::Other(format!("{name}: \"{other}\" is not a float"))
                })?;
                let bits = u64::from_str_radix(hex, 16)
                    .map_err(|_| FieldError::Other(format!("{name}: bad NaN bits \"{other}\"")))?;
                Ok(if hex.len() <= 8 {
                    f64::from(f32::from_bits(bits as u32))
                } else {
                    f64::from_bits(bits)
                })
            }
        },
        _ => Err(FieldError::Other(format!("{name}: expected a number"))),
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
    fn float(&mut self, name: &'static str, value: f64, single: bool) {
        self.0.insert(name.into(), float_value(value, single));
    }
    fn floats(&mut self, name: &'static str, values: &[f64], single: bool) {
        let arr = values.iter().map(|&v| float_value(v, single)).collect();
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

    fn get(&mut self, name: &str) -> Option<&'a Value> {
        self.used.insert(name.to_owned());
        self.map.and_then(|m| m.get(name)).filter(|v| !v.is_null())
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
    fn float(&mut self, name: &'static str) -> Result<f64, FieldError> {
        self.get(name).map_or(Ok(0.0), |v| parse_float(name, v))
    }
    fn floats(&mut self, name: &'static str, out: &mut [f64]) -> Result<(), FieldError> {
        let Some(v) = self.get(name) else {
            out.fill(0.0);
            return Ok(());
        };
        let arr = v
            .as_array()
            .filter(|a| a.len() == out.len())
            .ok_or_else(|| wrong(name, &format!("an array of {} numbers", out.len()), v))?;
        for (slot, item) in out.iter_mut().zip(arr) {
            *slot = parse_float(name, item)?;
        }
        Ok(())
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
        for v in [0.1f32, -3.25, 1e-30, f32::MAX, f32::MIN_POSITIVE] {
            let j = float_value(f64::from(v), true);
            let back = parse_float("x", &j).expect("parses") as f32;
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
        assert_eq!(float_value(0.1f32.into(), true).to_string(), "0.1");
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let back = parse_float("x", &float_value(v, false)).expect("parses");
            assert_eq!(back.to_bits(), v.to_bits());
        }
        let odd_nan = f64::from_bits(0x7ff8_0000_0000_0001);
        let back = parse_float("x", &float_value(odd_nan, false)).expect("parses");
        assert_eq!(back.to_bits(), odd_nan.to_bits());
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(unhex("0x00 ff\n10").expect("hex"), vec![0, 255, 16]);
        assert!(unhex("abc").is_err());
        assert!(unhex("zz").is_err());
        assert_eq!(hex(&[0, 171]), "00ab");
    }
}
