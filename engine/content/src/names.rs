//! The naming rules: pack ids, namespaces, display names, definition ids and asset names.
//!
//! Owns: what makes a string safe to become a path component or a wire id (no traversal, no
//! separators, no control characters, no leading dots, no Windows device names, bounded length).
//! Must not: touch the filesystem or know where a name came from (callers attach file/key/line).
//!
//! Identifiers (pack ids, namespaces, definition-id local parts, asset-name components) use ASCII
//! letters, digits, `-`, `_` and `.`, start with a letter or a digit, contain no `..` and do not end
//! with `.`. Display names may be any Unicode text without control characters or path separators.

use std::fmt;

/// Longest pack id, bytes.
pub const MAX_PACK_ID: usize = 64;
/// Longest namespace, bytes.
pub const MAX_NAMESPACE: usize = 64;
/// Longest display name, characters.
pub const MAX_DISPLAY_NAME: usize = 128;
/// Longest string the wire's `char[64]` fields carry (one byte is the NUL).
pub const MAX_WIRE_STR: usize = 63;
/// Longest `meshVariant` (`char[32]` on the wire).
pub const MAX_MESH_VARIANT: usize = 31;
/// Longest single asset-name component, bytes.
pub const MAX_ASSET_COMPONENT: usize = 100;
/// Longest whole asset name, bytes.
pub const MAX_ASSET_NAME: usize = 255;
/// Most `/`-separated components in an asset name.
pub const MAX_ASSET_DEPTH: usize = 8;
/// The namespace (and pack id) reserved for compiled-in content.
pub const BUILTIN_NAMESPACE: &str = "builtin";

/// Why a name is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameProblem {
    /// Empty string.
    Empty,
    /// Longer than allowed.
    TooLong {
        /// Its length (bytes, or characters for display names).
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Contains a control character (NUL, newline, escape, ...).
    ControlChar,
    /// Contains a path separator.
    Separator(char),
    /// Is or contains `..` (or is `.`).
    DotDot,
    /// Starts with a dot (hidden file, or a relative path step).
    LeadingDot,
    /// Starts with something other than a letter or a digit.
    BadStart(char),
    /// Ends with a dot or a space (Windows silently strips them).
    TrailingDotOrSpace,
    /// Contains a colon (drive letters, alternate data streams, or a second namespace).
    Colon,
    /// Is a Windows device name (`CON`, `NUL`, `COM1`, ...), with or without an extension.
    DeviceName(String),
    /// Contains a character outside the identifier set.
    BadChar(char),
    /// Reserved for compiled-in content.
    Reserved(&'static str),
    /// A definition id without a `namespace:` prefix.
    NotNamespaced,
    /// An asset name with an empty component (leading, trailing or doubled `/`).
    EmptyComponent,
    /// An asset name with too many components.
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// Leading or trailing whitespace in a display name.
    SurroundingWhitespace,
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "must not be empty"),
            Self::TooLong { len, max } => write!(f, "is {len} long; at most {max} is allowed"),
            Self::ControlChar => write!(f, "contains a control character"),
            Self::Separator(c) => write!(f, "contains the path separator {c:?}"),
            Self::DotDot => write!(f, "is or contains `..` (path traversal)"),
            Self::LeadingDot => write!(f, "starts with a dot"),
            Self::BadStart(c) => {
                write!(f, "starts with {c:?}; must start with a letter or a digit")
            }
            Self::TrailingDotOrSpace => write!(f, "ends with a dot or a space"),
            Self::Colon => write!(f, "contains a colon (drive letter or stream syntax)"),
            Self::DeviceName(n) => write!(f, "{n:?} is a Windows device name"),
            Self::BadChar(c) => write!(
                f,
                "contains {c:?}; only ASCII letters, digits, '-', '_' and '.' are allowed"
            ),
            Self::Reserved(r) => write!(f, "{r:?} is reserved for compiled-in content"),
            Self::NotNamespaced => write!(f, "has no `namespace:` prefix"),
            Self::EmptyComponent => write!(
                f,
                "has an empty path component (leading, trailing or doubled '/')"
            ),
            Self::TooDeep { max } => write!(f, "has more than {max} '/'-separated components"),
            Self::SurroundingWhitespace => write!(f, "has leading or trailing whitespace"),
        }
    }
}

/// True when `s` (or the part of it before the first dot) is a Windows device name.
pub fn is_windows_device_name(s: &str) -> bool {
    let stem = s.split('.').next().unwrap_or(s).trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" | "CLOCK$" => true,
        _ => {
            let (Some(head), Some(tail)) = (upper.get(..3), upper.get(3..)) else {
                return false;
            };
            (head == "COM" || head == "LPT")
                && matches!(
                    tail,
                    "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
                )
        }
    }
}

/// The identifier rule shared by pack ids, namespaces, definition-id local parts and asset-name
/// components.
fn identifier(s: &str, max: usize) -> Result<(), NameProblem> {
    if s.is_empty() {
        return Err(NameProblem::Empty);
    }
    if s.len() > max {
        return Err(NameProblem::TooLong { len: s.len(), max });
    }
    if s.chars().any(char::is_control) {
        return Err(NameProblem::ControlChar);
    }
    if s == "." || s.contains("..") {
        return Err(NameProblem::DotDot);
    }
    if let Some(c) = s.chars().find(|&c| c == '/' || c == '\\') {
        return Err(NameProblem::Separator(c));
    }
    if s.contains(':') {
        return Err(NameProblem::Colon);
    }
    let first = s.chars().next().unwrap_or('.');
    if first == '.' {
        return Err(NameProblem::LeadingDot);
    }
    if let Some(c) = s
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(NameProblem::BadChar(c));
    }
    if !first.is_ascii_alphanumeric() {
        return Err(NameProblem::BadStart(first));
    }
    if s.ends_with('.') {
        return Err(NameProblem::TrailingDotOrSpace);
    }
    if is_windows_device_name(s) {
        return Err(NameProblem::DeviceName(s.to_owned()));
    }
    Ok(())
}

/// Checks a pack id (`[mod].id`, and the entries of `depends`).
pub fn check_pack_id(s: &str) -> Result<(), NameProblem> {
    identifier(s, MAX_PACK_ID)?;
    if s.eq_ignore_ascii_case(BUILTIN_NAMESPACE) {
        return Err(NameProblem::Reserved(BUILTIN_NAMESPACE));
    }
    Ok(())
}

/// Checks a namespace (`[mod].namespace`, or the prefix of a definition id).
pub fn check_namespace(s: &str) -> Result<(), NameProblem> {
    identifier(s, MAX_NAMESPACE)?;
    if s.eq_ignore_ascii_case(BUILTIN_NAMESPACE) {
        return Err(NameProblem::Reserved(BUILTIN_NAMESPACE));
    }
    Ok(())
}

/// Checks a label (`[entity].name`, `[weapon].name`, `[sensor].name`): any text without control
/// characters or surrounding whitespace, at most [`MAX_DISPLAY_NAME`] characters. Labels never
/// become paths, so `AN/APG-66` is fine.
pub fn check_display_name(s: &str) -> Result<(), NameProblem> {
    if s.is_empty() {
        return Err(NameProblem::Empty);
    }
    let chars = s.chars().count();
    if chars > MAX_DISPLAY_NAME {
        return Err(NameProblem::TooLong {
            len: chars,
            max: MAX_DISPLAY_NAME,
        });
    }
    if s.chars().any(char::is_control) {
        return Err(NameProblem::ControlChar);
    }
    if s.trim() != s {
        return Err(NameProblem::SurroundingWhitespace);
    }
    Ok(())
}

/// Checks a pack's name (`[mod].name`), which tools may turn into a file or directory name: a
/// label (see [`check_display_name`]) without path separators, a leading dot, `..`, a trailing dot
/// or a Windows device name.
pub fn check_pack_name(s: &str) -> Result<(), NameProblem> {
    check_display_name(s)?;
    if let Some(c) = s.chars().find(|&c| c == '/' || c == '\\') {
        return Err(NameProblem::Separator(c));
    }
    if s.starts_with('.') {
        return Err(if s.starts_with("..") {
            NameProblem::DotDot
        } else {
            NameProblem::LeadingDot
        });
    }
    if s.ends_with('.') {
        return Err(NameProblem::TrailingDotOrSpace);
    }
    if is_windows_device_name(s) {
        return Err(NameProblem::DeviceName(s.to_owned()));
    }
    Ok(())
}

/// A namespaced definition id, `namespace:local`, in canonical (lowercase) form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DefId {
    /// The namespace.
    pub namespace: String,
    /// The local part.
    pub local: String,
}

impl DefId {
    /// The full id, `namespace:local`.
    pub fn full(&self) -> String {
        format!("{}:{}", self.namespace, self.local)
    }
}

impl fmt::Display for DefId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.namespace, self.local)
    }
}

/// Parses a definition id. Ids are matched case-insensitively, so the result is lowercased (the
/// caller warns when that changed the text). `builtin:` is accepted here; callers that read pack
/// files refuse it. The whole id must fit the wire's 63 bytes.
pub fn parse_def_id(s: &str) -> Result<DefId, NameProblem> {
    if s.is_empty() {
        return Err(NameProblem::Empty);
    }
    if s.len() > MAX_WIRE_STR {
        return Err(NameProblem::TooLong {
            len: s.len(),
            max: MAX_WIRE_STR,
        });
    }
    let Some((ns, local)) = s.split_once(':') else {
        // Report traversal or separators before the missing prefix: they are the worse problem.
        identifier(s, MAX_WIRE_STR)?;
        return Err(NameProblem::NotNamespaced);
    };
    let ns = ns.to_ascii_lowercase();
    let local = local.to_ascii_lowercase();
    if ns != BUILTIN_NAMESPACE {
        identifier(&ns, MAX_NAMESPACE)?;
    }
    identifier(&local, MAX_WIRE_STR)?;
    Ok(DefId {
        namespace: ns,
        local,
    })
}

/// Checks an asset name: `/`-separated identifier components (`f16a/f16a`, `music/menu_theme`),
/// no extension, no traversal, no absolute paths, no backslashes or drive letters.
pub fn check_asset_name(s: &str) -> Result<(), NameProblem> {
    if s.is_empty() {
        return Err(NameProblem::Empty);
    }
    if s.len() > MAX_ASSET_NAME {
        return Err(NameProblem::TooLong {
            len: s.len(),
            max: MAX_ASSET_NAME,
        });
    }
    if s.contains('\\') {
        return Err(NameProblem::Separator('\\'));
    }
    let mut depth = 0;
    for part in s.split('/') {
        depth += 1;
        if depth > MAX_ASSET_DEPTH {
            return Err(NameProblem::TooDeep {
                max: MAX_ASSET_DEPTH,
            });
        }
        if part.is_empty() {
            return Err(NameProblem::EmptyComponent);
        }
        identifier(part, MAX_ASSET_COMPONENT)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_ids() {
        assert_eq!(check_pack_id("fl-base-pack"), Ok(()));
        assert_eq!(check_pack_id("my_pack.v2"), Ok(()));
        assert_eq!(check_pack_id(""), Err(NameProblem::Empty));
        assert_eq!(check_pack_id(".."), Err(NameProblem::DotDot));
        assert_eq!(check_pack_id("a..b"), Err(NameProblem::DotDot));
        assert_eq!(check_pack_id(".hidden"), Err(NameProblem::LeadingDot));
        assert_eq!(check_pack_id("-x"), Err(NameProblem::BadStart('-')));
        assert_eq!(check_pack_id("a/b"), Err(NameProblem::Separator('/')));
        assert_eq!(check_pack_id("a\\b"), Err(NameProblem::Separator('\\')));
        assert_eq!(check_pack_id("C:pack"), Err(NameProblem::Colon));
        assert_eq!(check_pack_id("a\0b"), Err(NameProblem::ControlChar));
        assert_eq!(check_pack_id("a\nb"), Err(NameProblem::ControlChar));
        assert_eq!(check_pack_id("pack."), Err(NameProblem::TrailingDotOrSpace));
        assert_eq!(check_pack_id("a b"), Err(NameProblem::BadChar(' ')));
        assert_eq!(check_pack_id("pàck"), Err(NameProblem::BadChar('à')));
        assert_eq!(
            check_pack_id("builtin"),
            Err(NameProblem::Reserved("builtin"))
        );
        assert_eq!(
            check_pack_id("BUILTIN"),
            Err(NameProblem::Reserved("builtin"))
        );
        for dev in [
            "CON",
            "con",
            "Nul",
            "COM1",
            "lpt9",
            "aux.toml",
            "nul.tar.gz",
            "com0",
        ] {
            assert_eq!(
                check_pack_id(dev),
                Err(NameProblem::DeviceName(dev.into())),
                "{dev}"
            );
        }
        // Device-name prefixes that are not device names are fine.
        assert_eq!(check_pack_id("console"), Ok(()));
        assert_eq!(check_pack_id("com10"), Ok(()));
        assert_eq!(check_pack_id("nullify"), Ok(()));
        let long = "a".repeat(MAX_PACK_ID + 1);
        assert_eq!(
            check_pack_id(&long),
            Err(NameProblem::TooLong {
                len: MAX_PACK_ID + 1,
                max: MAX_PACK_ID
            })
        );
        assert_eq!(check_pack_id(&"a".repeat(MAX_PACK_ID)), Ok(()));
    }

    #[test]
    fn display_and_pack_names() {
        for ok in [
            "F-16A Fighting Falcon (ADF)",
            "AN/APG-66(V)1 radar",
            "МиГ-21бис",
            "...",
        ] {
            assert_eq!(check_display_name(ok), Ok(()), "{ok}");
        }
        assert_eq!(check_display_name(""), Err(NameProblem::Empty));
        assert_eq!(check_display_name("a\tb"), Err(NameProblem::ControlChar));
        assert_eq!(
            check_display_name(" x"),
            Err(NameProblem::SurroundingWhitespace)
        );
        assert!(check_display_name(&"é".repeat(MAX_DISPLAY_NAME)).is_ok());
        assert!(check_display_name(&"é".repeat(MAX_DISPLAY_NAME + 1)).is_err());

        assert_eq!(check_pack_name("Example Content Pack"), Ok(()));
        assert_eq!(check_pack_name("МиГ pack"), Ok(()));
        assert_eq!(check_pack_name("../etc"), Err(NameProblem::Separator('/')));
        assert_eq!(check_pack_name("a\\b"), Err(NameProblem::Separator('\\')));
        assert_eq!(check_pack_name(".."), Err(NameProblem::DotDot));
        assert_eq!(check_pack_name(".x"), Err(NameProblem::LeadingDot));
        assert_eq!(check_pack_name("x."), Err(NameProblem::TrailingDotOrSpace));
        assert_eq!(check_pack_name("a\0b"), Err(NameProblem::ControlChar));
        assert_eq!(
            check_pack_name("PRN"),
            Err(NameProblem::DeviceName("PRN".into()))
        );
        assert_eq!(
            check_pack_name("COM¹"),
            Err(NameProblem::DeviceName("COM¹".into()))
        );
    }

    #[test]
    fn def_ids() {
        assert_eq!(
            parse_def_id("fl-base:f16a"),
            Ok(DefId {
                namespace: "fl-base".into(),
                local: "f16a".into()
            })
        );
        assert_eq!(
            parse_def_id("FL-Base:F16A").map(|d| d.full()),
            Ok("fl-base:f16a".into())
        );
        assert_eq!(
            parse_def_id("builtin:debug-entity").map(|d| d.full()),
            Ok("builtin:debug-entity".into())
        );
        assert_eq!(parse_def_id("f16a"), Err(NameProblem::NotNamespaced));
        assert_eq!(parse_def_id("../f16a"), Err(NameProblem::DotDot));
        assert_eq!(parse_def_id("fl-base:../x"), Err(NameProblem::DotDot));
        assert_eq!(
            parse_def_id("fl-base:a/b"),
            Err(NameProblem::Separator('/'))
        );
        assert_eq!(parse_def_id("a:b:c"), Err(NameProblem::Colon));
        assert_eq!(parse_def_id("fl-base:"), Err(NameProblem::Empty));
        assert_eq!(parse_def_id(":x"), Err(NameProblem::Empty));
        assert_eq!(
            parse_def_id("ns:con"),
            Err(NameProblem::DeviceName("con".into()))
        );
        let long = format!("ns:{}", "a".repeat(61));
        assert!(matches!(
            parse_def_id(&long),
            Err(NameProblem::TooLong { .. })
        ));
        assert!(parse_def_id(&format!("ns:{}", "a".repeat(60))).is_ok());
    }

    #[test]
    fn asset_names() {
        assert_eq!(check_asset_name("f16a/f16a"), Ok(()));
        assert_eq!(check_asset_name("radio/lead.rejoin"), Ok(()));
        assert_eq!(check_asset_name("builtin/jet-trainer"), Ok(()));
        assert_eq!(check_asset_name(""), Err(NameProblem::Empty));
        assert_eq!(
            check_asset_name("/etc/passwd"),
            Err(NameProblem::EmptyComponent)
        );
        assert_eq!(
            check_asset_name("f16a//f16a"),
            Err(NameProblem::EmptyComponent)
        );
        assert_eq!(check_asset_name("f16a/"), Err(NameProblem::EmptyComponent));
        assert_eq!(
            check_asset_name("../../etc/passwd"),
            Err(NameProblem::DotDot)
        );
        assert_eq!(check_asset_name("a/./b"), Err(NameProblem::DotDot));
        assert_eq!(
            check_asset_name("a\\..\\b"),
            Err(NameProblem::Separator('\\'))
        );
        assert_eq!(check_asset_name("C:/x"), Err(NameProblem::Colon));
        assert_eq!(check_asset_name("fl-base:f16a"), Err(NameProblem::Colon));
        assert_eq!(check_asset_name("a/.git"), Err(NameProblem::LeadingDot));
        assert_eq!(
            check_asset_name("a/NUL"),
            Err(NameProblem::DeviceName("NUL".into()))
        );
        assert_eq!(check_asset_name("a b"), Err(NameProblem::BadChar(' ')));
        assert_eq!(check_asset_name("a\0"), Err(NameProblem::ControlChar));
        assert_eq!(
            check_asset_name("a/b/c/d/e/f/g/h/i"),
            Err(NameProblem::TooDeep { max: 8 })
        );
        assert!(check_asset_name(&"a".repeat(MAX_ASSET_COMPONENT + 1)).is_err());
    }
}
