//! The line-numbered YAML tree a mission is read from, and the reader that turns its nodes into
//! values while collecting findings (file, line, dotted key).
//!
//! Owns: deserializing any YAML through serde-saphyr's `Spanned` into [`Node`]s (bounded by the
//! caller's options), and the typed accessors with their messages. Must not: know the mission
//! format (that is `read`).

use super::*;
// ---------------------------------------------------------------------------------------------
// The line-numbered tree.

#[derive(Debug, Clone)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) line: usize,
    pub(super) value: Value,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_saphyr::Spanned::<Value>::deserialize(d)?;
        Ok(Node {
            line: usize::try_from(s.referenced.line()).unwrap_or(0),
            value: s.value,
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            out.push(n);
        }
        Ok(Value::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key::<Node>()? {
            let v = map.next_value::<Node>()?;
            out.push((k, v));
        }
        Ok(Value::Map(out))
    }
}

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a true/false",
        Value::Int(_) => "a whole number",
        Value::Float(_) => "a number",
        Value::Str(_) => "text",
        Value::Seq(_) => "a list",
        Value::Map(_) => "a mapping",
    }
}

/// Trims and bounds text for messages and ids (control characters replaced).
pub(super) fn clean(s: &str, max: usize) -> String {
    let t = s.trim();
    let mut out: String = t
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if t.chars().count() > max {
        out.push('…');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Reading.

/// The result of reading one mission file: the mission when its structure is sound, and every
/// finding (errors and warnings) in file order.
#[derive(Debug, Clone)]
pub struct MissionCheck {
    /// The file read.
    pub file: PathBuf,
    /// The mission, when it has no structural error (content checks may still add errors).
    pub mission: Option<Mission>,
    /// Errors and warnings.
    pub findings: Vec<Finding>,
}

impl MissionCheck {
    /// Errors among the findings.
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count()
    }

    /// Warnings among the findings.
    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
    }

    /// Whether the mission can run: it was read and nothing is an error.
    pub fn is_valid(&self) -> bool {
        self.mission.is_some() && self.errors() == 0
    }
}

pub(super) struct Reader<'a> {
    pub(super) file: &'a Path,
    pub(super) findings: Vec<Finding>,
    pub(super) errors: usize,
}

impl Reader<'_> {
    pub(super) fn push(&mut self, severity: Severity, line: usize, key: &str, message: String) {
        if severity == Severity::Error {
            self.errors += 1;
        }
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(Finding {
                severity,
                file: self.file.to_owned(),
                line,
                key: key.to_owned(),
                message,
            });
        }
    }
    pub(super) fn error(&mut self, line: usize, key: &str, message: String) {
        self.push(Severity::Error, line, key, message);
    }
    pub(super) fn warn(&mut self, line: usize, key: &str, message: String) {
        self.push(Severity::Warning, line, key, message);
    }

    pub(super) fn wrong(&mut self, node: &Node, key: &str, want: &str) {
        self.error(
            node.line,
            key,
            format!("expected {want}, found {}", kind(&node.value)),
        );
    }

    /// A mapping's entries by key, with unknown keys reported (`not_yet` ones as warnings).
    pub(super) fn fields<'n>(
        &mut self,
        node: &'n Node,
        key: &str,
        known: &[&str],
        not_yet: &[&str],
    ) -> Option<BTreeMap<&'n str, (usize, &'n Node)>> {
        let Value::Map(entries) = &node.value else {
            self.wrong(node, key, "a mapping");
            return None;
        };
        let mut out = BTreeMap::new();
        for (k, v) in entries {
            let name = match &k.value {
                Value::Str(s) => s.as_str(),
                other => {
                    self.error(
                        k.line,
                        key,
                        format!("a key must be text, found {}", kind(other)),
                    );
                    continue;
                }
            };
            let path = if key.is_empty() {
                clean(name, 64)
            } else {
                format!("{key}.{}", clean(name, 64))
            };
            if known.contains(&name) {
                if out.insert(name, (k.line, v)).is_some() {
                    self.error(k.line, &path, "given more than once".into());
                }
            } else if not_yet.contains(&name) {
                self.warn(
                    k.line,
                    &path,
                    "not supported by this engine yet; ignored".into(),
                );
            } else {
                self.error(
                    k.line,
                    &path,
                    format!("unknown key; known keys here: {}", known.join(", ")),
                );
            }
        }
        Some(out)
    }

    pub(super) fn text(&mut self, node: &Node, key: &str, max: usize) -> Option<String> {
        match &node.value {
            Value::Str(s) => {
                let t = clean(s, max);
                if t.is_empty() {
                    self.error(node.line, key, "must not be empty".into());
                    None
                } else {
                    Some(t)
                }
            }
            _ => {
                self.wrong(node, key, "text");
                None
            }
        }
    }

    pub(super) fn number(&mut self, node: &Node, key: &str) -> Option<f64> {
        let v = match node.value {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => {
                self.wrong(node, key, "a number");
                return None;
            }
        };
        if v.is_finite() {
            Some(v)
        } else {
            self.error(node.line, key, format!("{v} is not a finite number"));
            None
        }
    }

    pub(super) fn number_in(
        &mut self,
        node: &Node,
        key: &str,
        lo: f64,
        hi: f64,
        unit: &str,
    ) -> Option<f64> {
        let v = self.number(node, key)?;
        if (lo..=hi).contains(&v) {
            Some(v)
        } else {
            self.error(
                node.line,
                key,
                format!("{v} is out of range ({lo} to {hi}{unit})"),
            );
            None
        }
    }

    pub(super) fn int_in(&mut self, node: &Node, key: &str, lo: i64, hi: i64) -> Option<i64> {
        match node.value {
            Value::Int(i) if (lo..=hi).contains(&i) => Some(i),
            Value::Int(i) => {
                self.error(
                    node.line,
                    key,
                    format!("{i} is out of range ({lo} to {hi})"),
                );
                None
            }
            _ => {
                self.wrong(node, key, "a whole number");
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, node: &Node, key: &str) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong(node, key, "true or false");
                None
            }
        }
    }
}
