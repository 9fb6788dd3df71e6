//! Typed reading of TOML definition files: every error names the file, the dotted key and the
//! line, and every key nobody read becomes a warning.
//!
//! Owns: the span → line mapping, typed getters (string, number, integer, bool, arrays of
//! strings and of numbers, sub-tables, arrays of tables) with length bounds, the record of
//! which line each value was read from, and unknown-key warnings. Must not: know any schema
//! (callers name their keys), panic on any input, or allocate beyond the input's size (arrays
//! are length-checked before they are copied).
//!
//! The error and warning types belong to the caller: a loader implements [`Diagnostics`] for
//! a marker type and every getter returns that loader's own error, so `?` needs no conversion.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::marker::PhantomData;
use std::ops::Range;
use std::path::Path;
use toml_edit::{Document, Item, TableLike, Value};

pub use toml_edit;

mod finding;
pub use finding::{Finding, Severity};

/// How a loader turns reading problems into its own error and warning types.
pub trait Diagnostics {
    /// The loader's error.
    type Error;
    /// The loader's warning.
    type Warning;
    /// The text is not valid TOML.
    fn syntax(file: &Path, line: usize, message: String) -> Self::Error;
    /// A key is missing, has the wrong type or a value the schema refuses.
    fn invalid(file: &Path, line: usize, key: &str, problem: String) -> Self::Error;
    /// A non-fatal finding (an unknown key).
    fn warning(file: &Path, line: usize, key: &str, message: String) -> Self::Warning;
}

/// One file being read: its name, line index, the warnings so far and the line of every value
/// read.
pub struct Source<'f, D: Diagnostics> {
    /// The file, for messages.
    pub file: &'f Path,
    line_starts: Vec<usize>,
    /// Warnings collected so far.
    pub warnings: Vec<D::Warning>,
    // A RefCell so the getters can take `&Source` while tables borrow it.
    key_lines: RefCell<Vec<(String, usize)>>,
    _diagnostics: PhantomData<D>,
}

impl<D: Diagnostics> std::fmt::Debug for Source<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("file", &self.file)
            .field("lines", &self.line_starts.len())
            .finish_non_exhaustive()
    }
}

impl<'f, D: Diagnostics> Source<'f, D> {
    /// Indexes `text` (the contents of `file`) by line.
    pub fn new(file: &'f Path, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            file,
            line_starts,
            warnings: Vec::new(),
            key_lines: RefCell::new(Vec::new()),
            _diagnostics: PhantomData,
        }
    }

    /// 1-based line of a span's start; 0 when there is no span.
    pub fn line(&self, span: Option<Range<usize>>) -> usize {
        match span {
            Some(r) => self.line_starts.partition_point(|&s| s <= r.start).max(1),
            None => 0,
        }
    }

    /// Parses the document, mapping a syntax error to the loader's error with its line.
    pub fn parse(&self, text: &str) -> Result<Document<String>, D::Error> {
        Document::parse(text.to_owned()).map_err(|e| {
            D::syntax(
                self.file,
                self.line(e.span()).max(1),
                e.message().trim().to_owned(),
            )
        })
    }

    /// The loader's "invalid" error for `key` at `line` (at least 1).
    pub fn err(&self, key: &str, line: usize, problem: impl Into<String>) -> D::Error {
        D::invalid(self.file, line.max(1), key, problem.into())
    }

    /// Records a warning for `key` at `line` (at least 1).
    pub fn warn(&mut self, key: &str, line: usize, message: impl Into<String>) {
        let w = D::warning(self.file, line.max(1), key, message.into());
        self.warnings.push(w);
    }

    /// Takes the (dotted key, line) of every scalar or array value read so far, in read order.
    pub fn take_key_lines(&mut self) -> Vec<(String, usize)> {
        std::mem::take(self.key_lines.get_mut())
    }
}

/// A value with the line it was written on.
#[derive(Debug, Clone, PartialEq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// 1-based line.
    pub line: usize,
}

/// An array with its line, each entry with its own line.
pub type LinedList<T> = At<Vec<At<T>>>;

/// One table being read; remembers which keys were consumed so the rest can be warned about.
pub struct Table<'a> {
    table: &'a dyn TableLike,
    path: String,
    line: usize,
    used: BTreeSet<String>,
}

impl std::fmt::Debug for Table<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("path", &self.path)
            .field("line", &self.line)
            .finish_non_exhaustive()
    }
}

fn number(v: &Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

impl<'a> Table<'a> {
    /// The document's root table.
    pub fn root(table: &'a dyn TableLike) -> Self {
        Self::with_path(table, String::new(), 1)
    }

    /// A table reached some other way, with its dotted path and header line.
    pub fn with_path(table: &'a dyn TableLike, path: String, line: usize) -> Self {
        Self {
            table,
            path,
            line,
            used: BTreeSet::new(),
        }
    }

    /// The dotted path of a key in this table.
    pub fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    /// This table's dotted path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The line of this table's header (or of its first key).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The line of `key` (of this table's header when the key has no span or is absent).
    pub fn key_line<D: Diagnostics>(&self, src: &Source<'_, D>, key: &str) -> usize {
        let l = src.line(self.table.key(key).and_then(|k| k.span()));
        if l > 0 {
            return l;
        }
        let l = self.table.get(key).map(|i| src.line(i.span())).unwrap_or(0);
        if l > 0 { l } else { self.line }
    }

    /// Marks a key as known (documented, tolerated, not read) so it is not warned about.
    pub fn tolerate(&mut self, key: &str) {
        self.used.insert(key.to_owned());
    }

    /// The keys of this table, in document order.
    pub fn keys(&self) -> Vec<String> {
        self.table.iter().map(|(k, _)| k.to_owned()).collect()
    }

    fn item(&mut self, key: &str) -> Option<&'a Item> {
        self.used.insert(key.to_owned());
        self.table.get(key)
    }

    fn value<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Option<At<&'a Value>>, D::Error> {
        let line = self.key_line(src, key);
        match self.item(key) {
            None => Ok(None),
            Some(Item::Value(v)) => {
                src.key_lines.borrow_mut().push((self.key_path(key), line));
                Ok(Some(At { value: v, line }))
            }
            Some(other) => Err(src.err(
                &self.key_path(key),
                line,
                format!("expected a value, found {}", other.type_name()),
            )),
        }
    }

    fn missing<D: Diagnostics>(&self, src: &Source<'_, D>, key: &str, what: &str) -> D::Error {
        src.err(
            &self.key_path(key),
            self.line,
            format!("required {what} is missing"),
        )
    }

    /// A sub-table (`[a.b]`, a dotted key or an inline table).
    pub fn table<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Option<Table<'a>>, D::Error> {
        let line = self.key_line(src, key);
        let path = self.key_path(key);
        let Some(item) = self.item(key) else {
            return Ok(None);
        };
        match item.as_table_like() {
            Some(t) => {
                let own = src.line(item.span());
                let line = if own == 0 { line.max(self.line) } else { own };
                Ok(Some(Table::with_path(t, path, line)))
            }
            None => Err(src.err(
                &path,
                line,
                format!("expected a table, found {}", item.type_name()),
            )),
        }
    }

    /// A required sub-table.
    pub fn req_table<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Table<'a>, D::Error> {
        match self.table(src, key)? {
            Some(t) => Ok(t),
            None => Err(self.missing(src, key, "table")),
        }
    }

    /// An array of tables (`[[key]]`), at most `max` long. Each table's path is `key[i]`.
    pub fn tables<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
        max: usize,
    ) -> Result<Vec<Table<'a>>, D::Error> {
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
                let line = if own == 0 { line } else { own };
                Table::with_path(t, format!("{path}[{i}]"), line)
            })
            .collect())
    }

    /// An optional string.
    pub fn str<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Option<At<String>>, D::Error> {
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
    pub fn req_str<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<At<String>, D::Error> {
        match self.str(src, key)? {
            Some(s) => Ok(s),
            None => Err(self.missing(src, key, "key")),
        }
    }

    /// An optional finite number (integers accepted).
    pub fn f64<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Option<At<f64>>, D::Error> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        let x = number(value).ok_or_else(|| {
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
    pub fn req_f64<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<At<f64>, D::Error> {
        match self.f64(src, key)? {
            Some(x) => Ok(x),
            None => Err(self.missing(src, key, "key")),
        }
    }

    /// A finite number, or `default` when the key is absent.
    pub fn f64_or<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
        default: f64,
    ) -> Result<f64, D::Error> {
        Ok(self.f64(src, key)?.map_or(default, |x| x.value))
    }

    /// An optional integer.
    pub fn int<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Option<At<i64>>, D::Error> {
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
    pub fn bool<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
    ) -> Result<Option<At<bool>>, D::Error> {
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

    /// An optional array at most `max` long, each entry converted by `entry` (which says what
    /// it expected on `None`); an entry's error carries its own line.
    fn array<D: Diagnostics, T>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
        max: usize,
        what: &str,
        entry: impl Fn(&Value) -> Result<T, &'static str>,
    ) -> Result<Option<LinedList<T>>, D::Error> {
        let Some(At { value, line }) = self.value(src, key)? else {
            return Ok(None);
        };
        let path = self.key_path(key);
        let arr = value.as_array().ok_or_else(|| {
            src.err(
                &path,
                line,
                format!("expected an array of {what}, found {}", value.type_name()),
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
            let v = entry(e).map_err(|problem| {
                let problem = if problem.is_empty() {
                    format!("expected {what}, found {}", e.type_name())
                } else {
                    problem.to_owned()
                };
                src.err(&format!("{path}[{i}]"), el, problem)
            })?;
            out.push(At { value: v, line: el });
        }
        Ok(Some(At { value: out, line }))
    }

    /// An optional array of strings, at most `max` long; each entry keeps its own line.
    pub fn str_array<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
        max: usize,
    ) -> Result<Option<LinedList<String>>, D::Error> {
        self.array(src, key, max, "strings", |e| {
            e.as_str().map(str::to_owned).ok_or("")
        })
    }

    /// An optional array of finite numbers, at most `max` long.
    pub fn f64_array<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
        max: usize,
    ) -> Result<Option<At<Vec<f64>>>, D::Error> {
        let arr = self.array(src, key, max, "numbers", |e| match number(e) {
            None => Err(""),
            Some(x) if !x.is_finite() => Err("must be a finite number"),
            Some(x) => Ok(x),
        })?;
        Ok(arr.map(|a| At {
            value: a.value.into_iter().map(|x| x.value).collect(),
            line: a.line,
        }))
    }

    /// A required array of finite numbers, at most `max` long.
    pub fn req_f64_array<D: Diagnostics>(
        &mut self,
        src: &Source<'_, D>,
        key: &str,
        max: usize,
    ) -> Result<At<Vec<f64>>, D::Error> {
        match self.f64_array(src, key, max)? {
            Some(a) => Ok(a),
            None => Err(self.missing(src, key, "key")),
        }
    }

    /// Warns about every key nobody read or tolerated, then drops the table.
    pub fn finish<D: Diagnostics>(self, src: &mut Source<'_, D>) {
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
            src.warn(&self.key_path(k), l, "unknown key (ignored)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[derive(Debug)]
    enum Test {}

    #[derive(Debug, PartialEq)]
    enum Error {
        Syntax(usize, String),
        Invalid(usize, String, String),
    }

    impl Diagnostics for Test {
        type Error = Error;
        type Warning = (usize, String);
        fn syntax(_: &Path, line: usize, message: String) -> Error {
            Error::Syntax(line, message)
        }
        fn invalid(_: &Path, line: usize, key: &str, problem: String) -> Error {
            Error::Invalid(line, key.into(), problem)
        }
        fn warning(_: &Path, line: usize, key: &str, _: String) -> (usize, String) {
            (line, key.into())
        }
    }

    const TEXT: &str = "name = \"a\"\ncount = 3\n\n[wing]\narea = 27.3\nflaps = [0, 20.5, 45]\nextra = true\n\n[[station]]\nid = \"s1\"\n[[station]]\nid = 7\n";

    fn file() -> PathBuf {
        PathBuf::from("t.toml")
    }

    #[test]
    fn values_carry_their_lines_and_unread_keys_warn() {
        let f = file();
        let mut src = Source::<Test>::new(&f, TEXT);
        let doc = src.parse(TEXT).expect("test input");
        let mut root = Table::root(doc.as_table());
        assert_eq!(
            root.req_str(&src, "name").expect("test input"),
            At {
                value: "a".into(),
                line: 1
            }
        );
        assert_eq!(
            root.int(&src, "count")
                .expect("test input")
                .map(|i| i.value),
            Some(3)
        );
        let mut wing = root.req_table(&src, "wing").expect("test input");
        assert_eq!(wing.line(), 4);
        assert_eq!(
            wing.req_f64(&src, "area").expect("test input"),
            At {
                value: 27.3,
                line: 5
            }
        );
        let flaps = wing
            .f64_array(&src, "flaps", 8)
            .expect("test input")
            .expect("test input");
        assert_eq!((flaps.value, flaps.line), (vec![0.0, 20.5, 45.0], 6));
        wing.finish(&mut src);
        let stations = root.tables(&src, "station", 4).expect("test input");
        assert_eq!(stations.len(), 2);
        assert_eq!(stations[1].path(), "station[1]");
        root.finish(&mut src);
        assert_eq!(src.warnings, vec![(7, "wing.extra".to_owned())]);
        let lines = src.take_key_lines();
        assert!(lines.contains(&("wing.area".to_owned(), 5)), "{lines:?}");
    }

    #[test]
    fn wrong_types_missing_keys_and_bounds_are_errors_with_lines() {
        let f = file();
        let src = Source::<Test>::new(&f, TEXT);
        let doc = src.parse(TEXT).expect("test input");
        let mut root = Table::root(doc.as_table());
        let Error::Invalid(line, key, problem) =
            root.req_f64(&src, "name").expect_err("should fail")
        else {
            panic!("not invalid");
        };
        assert_eq!((line, key.as_str()), (1, "name"));
        assert!(problem.contains("expected a number"), "{problem}");
        let err = root.req_str(&src, "missing").expect_err("should fail");
        assert_eq!(
            err,
            Error::Invalid(1, "missing".into(), "required key is missing".into())
        );
        assert!(
            matches!(root.tables(&src, "station", 1), Err(Error::Invalid(_, _, p)) if p.contains("at most 1"))
        );
        let mut wing = root.req_table(&src, "wing").expect("test input");
        assert!(matches!(
            wing.f64_array(&src, "flaps", 2),
            Err(Error::Invalid(6, _, _))
        ));
        assert!(
            matches!(wing.str_array(&src, "flaps", 8), Err(Error::Invalid(6, k, _)) if k == "wing.flaps[0]")
        );
        assert!(matches!(
            root.table(&src, "count"),
            Err(Error::Invalid(2, _, _))
        ));
        let mut stations = root.tables(&src, "station", 4).expect("test input");
        assert!(
            matches!(stations[1].req_str(&src, "id"), Err(Error::Invalid(12, k, _)) if k == "station[1].id")
        );
    }

    #[test]
    fn non_finite_numbers_and_bad_syntax_are_refused() {
        let f = file();
        let text = "a = nan\nb = [1.0, inf]\n";
        let src = Source::<Test>::new(&f, text);
        let doc = src.parse(text).expect("test input");
        let mut root = Table::root(doc.as_table());
        assert!(
            matches!(root.f64(&src, "a"), Err(Error::Invalid(1, _, p)) if p.contains("finite"))
        );
        assert!(
            matches!(root.f64_array(&src, "b", 4), Err(Error::Invalid(2, k, p)) if k == "b[1]" && p.contains("finite"))
        );
        let bad = "x = 1\ny = = 2\n";
        let src = Source::<Test>::new(&f, bad);
        assert!(matches!(src.parse(bad), Err(Error::Syntax(2, _))));
    }
}
