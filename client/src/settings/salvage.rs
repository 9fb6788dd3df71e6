//! Reading what can be read of a settings file that TOML refuses (a typo, a stray character):
//! each header and each `key = value` statement is parsed on its own, a value spanning lines
//! is joined with the lines after it, and what parses is put where the file had it.
//!
//! Owns the salvage. Must not: interpret the values (`format` does), or do unbounded work: the
//! joining is limited per statement and in all.

use toml::{Table, Value};

/// Lines a broken file's salvage joins at most to complete one multi-line value.
const MAX_JOINED_LINES: usize = 64;
/// Bytes the joined attempts parse at most in all (a file of unclosed arrays would otherwise
/// cost 64 parses of up to 64 lines per line); past it, lines are read one by one.
const SALVAGE_JOIN_BUDGET_BYTES: usize = 512 * 1024;

/// Adds what `from` has and `into` lacks, table by table (the first occurrence of a key wins,
/// as it would have had the file parsed).
fn merge_missing(into: &mut Table, from: Table) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Table(a)), Value::Table(b)) => merge_missing(a, b),
            (Some(_), _) => {}
            (None, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// The table at `path` under `root`, made when missing (`None`: a value is in the way).
fn table_at<'t>(root: &'t mut Table, path: &[String]) -> Option<&'t mut Table> {
    let mut t = root;
    for p in path {
        let v = t
            .entry(p.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        t = match v {
            Value::Table(inner) => inner,
            _ => return None,
        };
    }
    Some(t)
}

/// A `[a.b]` header's path (`None`: not a plain table header).
fn header_path(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('[') || t.starts_with("[[") {
        return None;
    }
    let mut table = toml::from_str::<Table>(t).ok()?;
    let mut path = Vec::new();
    loop {
        if table.len() != 1 {
            break;
        }
        let (k, v) = table.into_iter().next()?;
        path.push(k);
        match v {
            Value::Table(inner) => table = inner,
            _ => return None,
        }
    }
    (!path.is_empty()).then_some(path)
}

/// Whether a line that does not parse on its own may open a value spanning lines (an array,
/// an inline table or a multi-line string after its `=`).
fn may_continue(line: &str) -> bool {
    line.split_once('=')
        .is_some_and(|(_, v)| v.contains(['[', '{']) || v.contains("\"\"\"") || v.contains("'''"))
}

/// Every statement of a file that TOML refused which reads on its own, and how many statements
/// could not be read: each header and each
/// `key = value` (joined with the following lines when the value spans lines) is parsed alone,
/// and what parses is put where the file had it. Statements after an array-of-tables header
/// (`[[x]]`) are skipped (settings have none; the moved-aside file keeps them).
pub(super) fn salvage(text: &str) -> (Table, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let mut root = Table::new();
    let mut section: Option<Vec<String>> = Some(Vec::new());
    let mut dropped = 0usize;
    let mut budget = SALVAGE_JOIN_BUDGET_BYTES;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        i += 1;
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('[') && !t.contains('=') {
            section = header_path(t);
            if section.is_none() {
                dropped += 1;
            }
            continue;
        }
        let Some(path) = &section else {
            dropped += 1;
            continue;
        };
        let mut parsed = toml::from_str::<Table>(line).ok().map(|t| (t, 0));
        if parsed.is_none() && may_continue(line) {
            let mut chunk = line.to_owned();
            for extra in 1..=MAX_JOINED_LINES.min(lines.len() - i) {
                chunk.push('\n');
                chunk.push_str(lines[i + extra - 1]);
                if chunk.len() > budget {
                    break;
                }
                budget -= chunk.len();
                if let Ok(t) = toml::from_str::<Table>(&chunk) {
                    parsed = Some((t, extra));
                    break;
                }
            }
        }
        match parsed {
            Some((t, extra)) => {
                i += extra;
                if let Some(into) = table_at(&mut root, path) {
                    merge_missing(into, t);
                }
            }
            None => dropped += 1,
        }
    }
    (root, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_read_alone_and_put_in_their_sections() {
        let text = "top = 1\n[a]\nx = = 2\ny = [\n  1,\n  2,\n]\n[a.b]\nz = \"q\"\n[[arr]]\nw = 3\n[c]\ny = 4\ny = 5\n";
        let (t, dropped) = salvage(text);
        assert_eq!(t["top"].as_integer(), Some(1));
        assert_eq!(t["a"]["y"].as_array().map(Vec::len), Some(2));
        assert_eq!(t["a"]["b"]["z"].as_str(), Some("q"));
        assert_eq!(
            t["c"]["y"].as_integer(),
            Some(4),
            "the first occurrence wins"
        );
        assert!(t.get("arr").is_none() && t["a"].get("x").is_none());
        assert_eq!(
            dropped, 3,
            "x = = 2, the [[arr]] header and the statement under it"
        );
    }
}
