//! The rules every definition file shares, and the door to the weapon and sensor definitions.
//!
//! Owns: reading a definition id (namespace prefix, reserved `builtin:`, case folding, the wire's
//! length), reading definition-id references and asset names, the unit conversions of the pack's
//! aviation units into SI (done once, here, at the boundary), and bounded numbers (every value a
//! definition authors is checked against a range, with the file, line and key in the error).
//! Weapons live in [`crate::weapon`] and sensors in [`crate::sensor`]; both are re-exported here
//! so `fl_content::defs::*` keeps naming them. Must not: know any one definition's schema.

use crate::error::ContentError;
use crate::names::{BUILTIN_NAMESPACE, NameProblem, check_asset_name, parse_def_id};
use crate::toml_read::{At, Src, Tbl, bad_name};

pub use crate::sensor::{
    Lobe, POD_REFERENCE_HZ, SensorDef, SensorRole, SensorType, parse_sensor_text,
};
pub use crate::weapon::{
    DEFAULT_GUN_DISPERSION_RAD, DEFAULT_GUN_MUZZLE_VELOCITY_MPS, DEFAULT_GUN_RATE_OF_FIRE_RPM,
    DEFAULT_GUN_ROUNDS, GuidanceTable, GunDefaulted, GunParams, MAX_ROUNDS, Performance, Reach,
    Seeker, SeekerType, Susceptibility, Warhead, WeaponDef, WeaponLines, WeaponType,
    parse_weapon_text,
};

/// Pounds to kilograms (exact, by definition of the international pound).
pub const LB_TO_KG: f64 = 0.453_592_37;
/// Nautical miles to metres (exact, by definition).
pub const NM_TO_M: f64 = 1852.0;
/// Feet to metres (exact, by definition of the international foot).
pub const FT_TO_M: f64 = 0.3048;
/// Knots to metres per second (exact: one nautical mile per hour).
pub const KT_TO_MPS: f64 = 1852.0 / 3600.0;
/// Degrees to radians (a constant factor, not a transcendental: platform-independent).
pub const DEG_TO_RAD: f64 = std::f64::consts::PI / 180.0;

/// The range a definition's number must lie in (`lo` open or closed, `hi` always closed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Span {
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    pub(crate) lo_open: bool,
}

impl Span {
    /// `[lo, hi]`.
    pub(crate) const fn closed(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            lo_open: false,
        }
    }

    /// `(lo, hi]`.
    pub(crate) const fn above(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            lo_open: true,
        }
    }

    pub(crate) fn contains(self, x: f64) -> bool {
        let above_lo = if self.lo_open {
            x > self.lo
        } else {
            x >= self.lo
        };
        above_lo && x <= self.hi
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = if self.lo_open { "(" } else { "[" };
        write!(f, "{open}{}, {}]", self.lo, self.hi)
    }
}

/// Reads an optional number and refuses one outside `span` (NaN and infinities are refused by
/// the reader). `unit` is how the file writes it (`"nm"`, `""`), for the message.
pub(crate) fn bounded(
    src: &Src<'_>,
    t: &mut Tbl<'_>,
    key: &str,
    span: Span,
    unit: &str,
) -> Result<Option<At<f64>>, ContentError> {
    let path = t.key_path(key);
    match t.f64(src, key)? {
        None => Ok(None),
        Some(at) if span.contains(at.value) => Ok(Some(at)),
        Some(At { value, line }) => {
            let unit = if unit.is_empty() {
                String::new()
            } else {
                format!(" {unit}")
            };
            Err(src.err(&path, line, format!("{value}{unit} is outside {span}")))
        }
    }
}

/// Reads a required number in `span`.
pub(crate) fn req_bounded(
    src: &Src<'_>,
    t: &mut Tbl<'_>,
    key: &str,
    span: Span,
    unit: &str,
) -> Result<At<f64>, ContentError> {
    match bounded(src, t, key, span, unit)? {
        Some(at) => Ok(at),
        None => Err(src.err(&t.key_path(key), t.line(), "required key is missing")),
    }
}

/// Reads the id a definition declares. An id without a prefix is read in the pack's namespace
/// (with a warning); `builtin:` is refused (except in the builtin layer itself); a foreign namespace warns (it is how a pack overrides
/// another pack's definition, and also the commonest typo); upper case is folded (with a warning).
pub(crate) fn declared_id(
    src: &mut Src<'_>,
    at: &At<String>,
    key: &str,
    namespace: &str,
) -> Result<String, ContentError> {
    let id = reference(src, at, key, namespace)?;
    let ns = id.split(':').next().unwrap_or("");
    if ns == BUILTIN_NAMESPACE && namespace != BUILTIN_NAMESPACE {
        return Err(bad_name(
            src,
            key,
            at.line,
            &at.value,
            NameProblem::Reserved(BUILTIN_NAMESPACE),
        ));
    }
    if ns != namespace {
        src.warn(
            key,
            at.line,
            format!(
                "{id:?} is not in this pack's namespace {namespace:?}; it overrides or adds to another pack's vocabulary (usually a typo)"
            ),
        );
    }
    Ok(id)
}

/// Reads a reference to a definition (a sensor, a weapon). Same folding and prefix rule as
/// [`declared_id`]; `builtin:` references are allowed.
pub(crate) fn reference(
    src: &mut Src<'_>,
    at: &At<String>,
    key: &str,
    namespace: &str,
) -> Result<String, ContentError> {
    match parse_def_id(&at.value) {
        Ok(id) => {
            let full = id.full();
            if full != at.value {
                src.warn(
                    key,
                    at.line,
                    format!(
                        "definition ids are matched case-insensitively; {:?} is read as {full:?}",
                        at.value
                    ),
                );
            }
            Ok(full)
        }
        Err(NameProblem::NotNamespaced) => {
            let prefixed = format!("{namespace}:{}", at.value);
            let id =
                parse_def_id(&prefixed).map_err(|p| bad_name(src, key, at.line, &at.value, p))?;
            let full = id.full();
            src.warn(
                key,
                at.line,
                format!(
                    "{:?} has no namespace; read as {full:?} (write the prefix)",
                    at.value
                ),
            );
            Ok(full)
        }
        Err(p) => Err(bad_name(src, key, at.line, &at.value, p)),
    }
}

/// Reads an optional asset-name field; `""` means none. Names longer than the wire's 63 bytes are
/// refused when `wire` is set (the client could not resolve a truncated name).
pub(crate) fn asset_ref(
    src: &mut Src<'_>,
    t: &mut Tbl<'_>,
    key: &str,
    wire: bool,
) -> Result<Option<At<String>>, ContentError> {
    let path = t.key_path(key);
    let Some(at) = t.str(src, key)? else {
        return Ok(None);
    };
    if at.value.is_empty() {
        return Ok(None);
    }
    check_asset_name(&at.value).map_err(|p| bad_name(src, &path, at.line, &at.value, p))?;
    if wire && at.value.len() > crate::names::MAX_WIRE_STR {
        return Err(bad_name(
            src,
            &path,
            at.line,
            &at.value,
            NameProblem::TooLong {
                len: at.value.len(),
                max: crate::names::MAX_WIRE_STR,
            },
        ));
    }
    let first = at.value.split('/').next().unwrap_or("");
    if [
        "aircraft", "textures", "audio", "ai", "entities", "weapons", "sensors",
    ]
    .contains(&first)
        && at.value.contains('/')
    {
        src.warn(
            &path,
            at.line,
            format!(
                "asset names do not include the kind's directory; {:?} will be looked up under {first}/{first}/...",
                at.value
            ),
        );
    }
    Ok(Some(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_say_what_they_contain() {
        let closed = Span::closed(0.0, 1.0);
        assert!(closed.contains(0.0) && closed.contains(1.0) && !closed.contains(1.000_001));
        assert!(!closed.contains(-0.0001) && !closed.contains(f64::NAN));
        let above = Span::above(0.0, 180.0);
        assert!(!above.contains(0.0) && above.contains(1e-9) && above.contains(180.0));
        assert_eq!(closed.to_string(), "[0, 1]");
        assert_eq!(above.to_string(), "(0, 180]");
    }

    #[test]
    fn unit_factors_are_the_exact_definitions() {
        assert_eq!(NM_TO_M, 1852.0);
        assert_eq!(FT_TO_M, 0.3048);
        assert!((KT_TO_MPS * 3600.0 - 1852.0).abs() < 1e-12);
        assert_eq!(LB_TO_KG, 0.453_592_37);
        assert!((180.0 * DEG_TO_RAD - std::f64::consts::PI).abs() < 1e-15);
    }
}
