//! Typed reading of TOML definition files with a file, a dotted key and a line on every error,
//! and a warning for every key nobody read.
//!
//! Owns: the span → line mapping, typed getters (string, number, integer, bool, string arrays,
//! sub-tables, arrays of tables), length bounds on arrays, and unknown-key warnings. Must not:
//! know any schema (callers name their keys), panic on any input, or allocate beyond the input's
//! size (arrays are length-checked before they are copied).

use crate::error::{ContentError, ContentWarning};
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;
use toml_edit::{Document, Item, TableLike, Value};

/// One file being read: its name, line index and the warnings collected so far.
pub(crate) struct Src<'f> {
    pub(crate) file: &'f Path,
    line_starts: Vec<usize>,
    pub(crate) warnings: Vec<ContentWarning>,
}

impl<'f> Src<'f> {
    pub(crate) fn new(file: &'f Path, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            file,
            line_starts,
            warnings: Vec::new(),
        }
    }

    /// 1-based line of a span start; 0 when there is no span.
    pub(crate) fn line(&self, span: Option<Range<usize>>) -> usize {
        match span {
            Some(r) => self.line_starts.partition_point(|&s| s <= r.start).max(1),
            None => 0,
        }
    }

    pub(crate) fn parse(&self, text: &str) -> Result<Document<String>, ContentError> {
        Document::parse(text.to_owned()).map_err(|e| ContentError::Syntax {
            file: self.file.into(),
            line: self.line(e.span()).max(1),
            message: e.message().trim().to_owned(),
        })
    }

    pub(crate) fn err(&self, key: &str, line: usize, problem: impl Into<String>) -> ContentError {
        ContentError::Invalid {
            file: self.file.into(),
            line: line.max(1),
            key: key.into(),
            problem: problem.into(),
        }
    }

    pub(crate) fn warn(&mut self, key: &str, line: usize, message: impl Into<String>) {
        self.warnings
            .push(ContentWarning::new(self.file, line.max(1), key, message));
    }
}

/// A value with the line it was written on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct At<T> {
    pub(crate) value: T,
    pub(crate) line: usize,
}

/// One table being read; remembers which keys were consumed.
pub(crate) struct Tbl<'a> {
    table: &'a dyn TableLike,
    path: String,
    line: usize,
    used: BTreeSet<String>,
}

impl<'a> Tbl<'a> {
    pub(crate) fn root(table: &'a dyn TableLike) -> Self {
        Self {
            table,
            path: String::new(),
            line: 1,
            used: BTreeSet::new(),
        }
    }

    /// The dotted path of a key in this table.
    pub(crate) fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// This table's dotted path.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The line of this table's header (or of its first key).
    pub(crate) fn line(&self) -> usize {
        self.line
    }

    fn key_line(&self, src: &Src<'_>, key: &str) -> usize {
        let l = src.line(self.table.key(key).and_then(|k| k.span()));
        if l > 0 {
            return l;
        }
        let l = self.table.get(key).map(|i| src.line(i.span())).unwrap_or(0);
        if l > 0 { l } else { self.line }
    }

    /// Marks a key as known (documented, tolerated, not read) so it is not warned about.
    pub(crate) fn tolerate(&mut self, key: &str) {
        self.used.insert(key.to_owned());
    }

    /// The keys of this table, in document order.
    pub(crate) fn keys(&self) -> Vec<String> {
        self.table.iter().map(|(k, _)| k.to_owned()).collect()
    }

    fn item(&mut self, key: &str) -> Option<&'a Item> {
        self.used.insert(key.to_owned());
        self.table.get(key)
    }

    fn value(&mut self, src: &Src<'_>, key: &str) -> Result<Option<At<&'a Value>>, ContentError> {
        let line = self.key_line(src, key);
        match self.item(key) {
            None => Ok(None),
            Some(Item::Value(v)) => Ok(Some(At { value: v, line })),
            Some(other) => Err(src.err(
                &self.key_path(key),
                line,
                format!("expected a value, found {}", other.type_name()),
            )),
        }
    }

    /// A sub-table (`[a.b]`, a dotted key or an inline table).
    pub(crate) fn table(
        &mut self,
        src: &Src<'_>,
        key: &str,
    ) -> Result<Option<Tbl<'a>>, ContentError> {
        let line = self.key_line(src, key);
        let path = self.key_path(key);
        match self.item(key) {
            None => Ok(None),
            Some(item) => match item.as_table_like() {
                Some(t) => {
                    let own = src.line(item.span());
                    Ok(Some(Tbl {
                        table: t,
                        path,
                        line: if own == 0 { line.max(self.line) } else { own },
                        used: BTreeSet::new(),
                    }))
                }
                None => Err(src.err(
                    &path,
                    line,
                    format!("expected a table, found {}", item.type_name()),
                )),
            },
        }
    }

    /// A required sub-table.
    pub(crate) fn req_table(&mut self, src: &Src<'_>, key: &str) -> Result<Tbl<'a>, ContentError> {
        let line = self.line;
        let path = self.key_path(key);
        self.table(src, key)?
            .ok_or_else(|| src.err(&path, line, "required table is missing"))
    }

    /// An array of tables (`[[key]]`), at most `max` long. Each table's path is `key[i]`.
    pub(crate) fn tables(
        &mut self,
        src: &Src<'_>,
        key: &str,
        max: usize,
    ) -> Result<Vec<Tbl<'a>>, ContentError> {
        let line = self.key_line(src, key);
        let path = self.key_path(key);
        let Some(item) = self.item(key) else {
            return Ok(Vec::new());
        };
        let Some(arr) = item.as_array_of_tables() else {
            return Err(src.err(
                &path,
                line,
                format!(
                    "expected an array of tables ([[{key}]]), found {}",
                    item.type_name()
                ),
            ));
        };
        if arr.len() > max {
            return Err(src.err(
                &path,
                line,
                format!("has {} entries; at most {max} are accepted", arr.len()),
            ));
        }
        Ok(arr
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let own = src.line(t.span());
                Tbl {
                    table: t,
                    path: format!("{path}[{i}]"),
                    line: if own == 0 { line } else { own },
                    used: BTreeSet::new(),
                }
            })
            .collect())
    }

    /// An optional string.
    pub(crate) fn str(
        &mut self,
        src: &Src<'_>,
        key: &str,
    ) -> Result<Option<At<String>>, ContentError> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        match value.as_str() {
            Some(s) => Ok(Some(At {
                value: s.to_owned(),
                line,
            })),
            None => Err(src.err(
                &self.key_path(key),
                line,
                format!("expected a string, found {}", value.type_name()),
            )),
        }
    }

    /// A required string.
    pub(crate) fn req_str(&mut self, src: &Src<'_>, key: &str) -> Result<At<String>, ContentError> {
        let line = self.line;
        let path = self.key_path(key);
        self.str(src, key)?
            .ok_or_else(|| src.err(&path, line, "required key is missing"))
    }

    /// An optional finite number (integers accepted).
    pub(crate) fn f64(
        &mut self,
        src: &Src<'_>,
        key: &str,
    ) -> Result<Option<At<f64>>, ContentError> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        let x = value
            .as_float()
            .or_else(|| value.as_integer().map(|i| i as f64))
            .ok_or_else(|| {
                src.err(
                    &self.key_path(key),
                    line,
                    format!("expected a number, found {}", value.type_name()),
                )
            })?;
        if !x.is_finite() {
            return Err(src.err(&self.key_path(key), line, "must be a finite number"));
        }
        Ok(Some(At { value: x, line }))
    }

    /// A required finite number.
    pub(crate) fn req_f64(&mut self, src: &Src<'_>, key: &str) -> Result<At<f64>, ContentError> {
        let line = self.line;
        let path = self.key_path(key);
        self.f64(src, key)?
            .ok_or_else(|| src.err(&path, line, "required key is missing"))
    }

    /// An optional integer.
    pub(crate) fn int(
        &mut self,
        src: &Src<'_>,
        key: &str,
    ) -> Result<Option<At<i64>>, ContentError> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        match value.as_integer() {
            Some(i) => Ok(Some(At { value: i, line })),
            None => Err(src.err(
                &self.key_path(key),
                line,
                format!("expected an integer, found {}", value.type_name()),
            )),
        }
    }

    /// An optional boolean.
    pub(crate) fn bool(
        &mut self,
        src: &Src<'_>,
        key: &str,
    ) -> Result<Option<At<bool>>, ContentError> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        match value.as_bool() {
            Some(b) => Ok(Some(At { value: b, line })),
            None => Err(src.err(
                &self.key_path(key),
                line,
                format!("expected true or false, found {}", value.type_name()),
            )),
        }
    }

    /// An optional array of strings, at most `max` long; each entry keeps its own line.
    pub(crate) fn str_array(
        &mut self,
        src: &Src<'_>,
        key: &str,
        max: usize,
    ) -> Result<Option<At<Vec<At<String>>>>, ContentError> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        let path = self.key_path(key);
        let arr = value.as_array().ok_or_else(|| {
            src.err(
                &path,
                line,
                format!("expected an array of strings, found {}", value.type_name()),
            )
        })?;
        if arr.len() > max {
            return Err(src.err(
                &path,
                line,
                format!("has {} entries; at most {max} are accepted", arr.len()),
            ));
        }
        let mut out = Vec::with_capacity(arr.len());
        for (i, e) in arr.iter().enumerate() {
            let el = src.line(e.span()).max(line);
            let s = e.as_str().ok_or_else(|| {
                src.err(
                    &format!("{path}[{i}]"),
                    el,
                    format!("expected a string, found {}", e.type_name()),
                )
            })?;
            out.push(At {
                value: s.to_owned(),
                line: el,
            });
        }
        Ok(Some(At { value: out, line }))
    }

    /// Warns about every key nobody read or tolerated.
    pub(crate) fn finish(self, src: &mut Src<'_>) {
        for (k, item) in self.table.iter() {
            if self.used.contains(k) {
                continue;
            }
            let l = src.line(self.table.key(k).and_then(|key| key.span()));
            let l = if l == 0 {
                src.line(item.span()).max(self.line)
            } else {
                l
            };
            let path = self.key_path(k);
            src.warn(&path, l, "unknown key (ignored)");
        }
    }
}
