//! Loading: discovery, the pack stack, definitions and reference resolution.
//!
//! Owns: discovery (mods directories and explicit pack directories), duplicate-pack, dependency
//! and cycle checks, the stack order (priority descending, ties by pack id), definition override
//! across packs, reference resolution (flight models through `fl-flight`, meshes, scripts,
//! sensors, weapons), the default loadout's payload and the error policy. Must not: iterate a hash
//! map into any output, or read a pack file other than through [`PackRoot`].

use crate::assets::{AssetKind, AssetLimits, PackRoot};
use crate::builtin;
use crate::content::{
    Content, EntityType, Pack, Payload, ResolvedAsset, TypeSource, read_resolved, resolve_in,
};
use crate::entity::{Category, EntityDef, parse_entity};
use crate::error::{AssetError, ContentError, ContentWarning};
use crate::manifest::parse_manifest;
use crate::names::BUILTIN_NAMESPACE;
use crate::sensor::{SensorDef, parse_sensor};
use crate::toml_read::Src;
use crate::weapon::{WeaponDef, parse_weapon};
use fl_flight::model::AircraftModel;
use fl_flight::schema::parse_flight_model;
use fl_flight::validate::{Severity, validate};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most pack directories considered in one load.
pub const MAX_PACKS: usize = 256;
/// The manifest's file name.
pub const MANIFEST: &str = "manifest.toml";

/// What to do when a pack or a definition fails to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// Any error fails the whole load (the default: an operator sees every problem at start-up).
    #[default]
    Fail,
    /// Skip the broken pack or definition, keep the rest, and report the errors in
    /// [`LoadReport::errors`].
    SkipAndReport,
}

/// Where to look for packs, and how strictly.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Directories whose subdirectories holding a `manifest.toml` are packs (`mods/`). A missing
    /// directory is not an error (no packs installed).
    pub mods_dirs: Vec<PathBuf>,
    /// Pack directories given directly (each must exist and hold a `manifest.toml`).
    pub pack_dirs: Vec<PathBuf>,
    /// Error policy.
    pub on_error: ErrorPolicy,
    /// File-size limits.
    pub limits: AssetLimits,
}

/// One definition that replaced another of the same id from a lower pack.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Override {
    /// `entity`, `weapon` or `sensor`.
    pub kind: &'static str,
    /// The id.
    pub id: String,
    /// The pack whose definition is used.
    pub winner: String,
    /// The pack whose definition is hidden.
    pub hidden: String,
}

/// What a load found besides the content itself.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Non-fatal findings, in discovery order.
    pub warnings: Vec<ContentWarning>,
    /// Errors of skipped packs and definitions (only with [`ErrorPolicy::SkipAndReport`]).
    pub errors: Vec<ContentError>,
    /// Definitions replaced by a higher-priority pack.
    pub overrides: Vec<Override>,
}

/// A failed load: every error found, and the warnings.
#[derive(Debug)]
pub struct LoadFailure {
    /// The errors, in discovery order (at least one).
    pub errors: Vec<ContentError>,
    /// The warnings.
    pub warnings: Vec<ContentWarning>,
}

impl fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "content failed to load ({} error(s))", self.errors.len())?;
        for e in &self.errors {
            write!(f, "\n  {e}")?;
            let mut src = std::error::Error::source(e);
            while let Some(s) = src {
                write!(f, ": {s}")?;
                src = s.source();
            }
        }
        Ok(())
    }
}

impl std::error::Error for LoadFailure {}
/// What the stack needs to know about any definition.
/// Parses the builtin files of `kind` into `out` (keyed by id). A builtin file that fails or
/// warns is a build defect: its problems, joined, are the error.
fn add_builtin_defs<T: Def>(
    out: &mut BTreeMap<String, T>,
    kind: AssetKind,
    parse: impl Fn(&mut Src<'_>, &str, &str, &str) -> Result<T, ContentError>,
) -> Result<(), String> {
    for f in builtin::FILES.iter().filter(|f| f.kind == kind) {
        let mut src = Src::new(Path::new(f.path), f.text);
        let problems: Vec<String> =
            match parse(&mut src, f.text, BUILTIN_NAMESPACE, BUILTIN_NAMESPACE) {
                Ok(def) if src.warnings.is_empty() => {
                    out.insert(def.id().to_string(), def);
                    continue;
                }
                Ok(_) => src.warnings.iter().map(ToString::to_string).collect(),
                Err(e) => vec![e.to_string()],
            };
        return Err(problems.join("; "));
    }
    Ok(())
}

trait Def {
    const LABEL: &'static str;
    fn id(&self) -> &str;
    fn file(&self) -> &Path;
    fn pack(&self) -> &str;
}

macro_rules! impl_def {
    ($t:ty, $label:literal) => {
        impl Def for $t {
            const LABEL: &'static str = $label;
            fn id(&self) -> &str {
                &self.id
            }
            fn file(&self) -> &Path {
                &self.file
            }
            fn pack(&self) -> &str {
                &self.pack
            }
        }
    };
}

impl_def!(SensorDef, "sensor");
impl_def!(WeaponDef, "weapon");
impl_def!(EntityDef, "entity");

struct Loader {
    policy: ErrorPolicy,
    limits: AssetLimits,
    errors: Vec<ContentError>,
    warnings: Vec<ContentWarning>,
    overrides: Vec<Override>,
}

impl Loader {
    fn fail(&mut self, e: ContentError) {
        // Not logged here: the caller reports every finding once, in one format (`findings`).
        tracing::debug!("{e}");
        self.errors.push(e);
    }

    fn warn(&mut self, w: ContentWarning) {
        self.warnings.push(w);
    }

    /// Candidate pack directories, in a deterministic order: each mods directory's entries sorted
    /// by name, then the explicit directories as given.
    fn discover(&mut self, opts: &LoadOptions) -> Vec<(PathBuf, bool)> {
        let mut out = Vec::new();
        for dir in &opts.mods_dirs {
            let rd = match std::fs::read_dir(dir) {
                Ok(rd) => rd,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    tracing::info!(dir = %dir.display(), "mods directory is absent: no packs from it");
                    continue;
                }
                Err(source) => {
                    self.fail(ContentError::Io {
                        path: dir.clone(),
                        source,
                    });
                    continue;
                }
            };
            let mut names = Vec::new();
            for entry in rd {
                match entry {
                    Ok(e) => names.push(e.file_name()),
                    Err(source) => self.fail(ContentError::Io {
                        path: dir.clone(),
                        source,
                    }),
                }
                if names.len() > crate::assets::MAX_DIR_ENTRIES {
                    break; // refused below; stop allocating
                }
            }
            if names.len() > crate::assets::MAX_DIR_ENTRIES {
                // Refuse rather than pick an arbitrary (directory-order) subset.
                self.fail(ContentError::TooManyFiles {
                    dir: dir.clone(),
                    max: crate::assets::MAX_DIR_ENTRIES,
                });
                continue;
            }
            names.sort();
            for name in names {
                let path = dir.join(&name);
                let visible = name.to_str().is_some_and(|n| !n.starts_with('.'));
                if visible && path.is_dir() && path.join(MANIFEST).exists() {
                    out.push((path, true));
                } else if visible && path.is_dir() {
                    tracing::debug!(dir = %path.display(), "no manifest.toml: not a pack");
                }
            }
        }
        for dir in &opts.pack_dirs {
            out.push((dir.clone(), false));
        }
        if out.len() > MAX_PACKS {
            self.warn(ContentWarning::new(
                "",
                0,
                "",
                format!(
                    "{} pack directories found; only the first {MAX_PACKS} are considered",
                    out.len()
                ),
            ));
            out.truncate(MAX_PACKS);
        }
        out
    }

    fn open_pack(&mut self, dir: &Path, from_mods_dir: bool) -> Option<Pack> {
        let root = match PackRoot::new(dir) {
            Ok(r) => r,
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        let (file, text) = match root.read_text(
            MANIFEST,
            AssetKind::Config,
            self.limits.limit(AssetKind::Config),
        ) {
            Ok(t) => t,
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        let (manifest, warnings) = match parse_manifest(&file, &text) {
            Ok(m) => m,
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        self.warnings.extend(warnings);
        if from_mods_dir && dir.file_name().and_then(|n| n.to_str()) != Some(manifest.id.as_str()) {
            self.warn(ContentWarning::new(
                &file,
                0,
                "mod.id",
                format!(
                    "the pack id {:?} differs from its directory name; packs are named by their id",
                    manifest.id
                ),
            ));
        }
        for lib in [
            format!("lib{}.so", manifest.id),
            format!("{}.dll", manifest.id),
            format!("lib{}.dylib", manifest.id),
        ] {
            if matches!(root.resolve(&lib), Ok(Some(_))) {
                self.warn(ContentWarning::new(
                    root.path().join(&lib),
                    0,
                    "",
                    "native (compiled) plugins are never loaded; the pack is read as a folder pack",
                ));
            }
        }
        if manifest.signature.is_some() {
            tracing::info!(pack = %manifest.id, "signature declared but not verified in this build");
        }
        Some(Pack { manifest, root })
    }

    /// Removes packs with missing dependencies (repeatedly) and packs on dependency cycles.
    fn check_dependencies(&mut self, packs: &mut BTreeMap<String, Pack>) {
        loop {
            let present: BTreeSet<String> = packs.keys().cloned().collect();
            let mut broken = Vec::new();
            for (id, p) in packs.iter() {
                if let Some(missing) = p.manifest.depends.iter().find(|d| !present.contains(*d)) {
                    broken.push(ContentError::MissingDependency {
                        file: p.manifest.file.clone(),
                        pack: id.clone(),
                        missing: missing.clone(),
                    });
                }
            }
            if broken.is_empty() {
                break;
            }
            for e in broken {
                if let ContentError::MissingDependency { pack, .. } = &e {
                    packs.remove(pack);
                }
                self.fail(e);
            }
        }
        // Cycles: depth-first from each pack in id order; a back edge closes a cycle.
        let mut on_cycle: BTreeSet<String> = BTreeSet::new();
        let ids: Vec<String> = packs.keys().cloned().collect();
        let mut done: BTreeSet<String> = BTreeSet::new();
        for start in &ids {
            if done.contains(start) {
                continue;
            }
            let mut path: Vec<String> = Vec::new();
            self.visit(start, packs, &mut path, &mut done, &mut on_cycle);
        }
        if !on_cycle.is_empty() {
            for id in &on_cycle {
                packs.remove(id);
            }
            // Packs that depended on a pack of a cycle now miss it.
            self.check_dependencies(packs);
        }
    }

    fn visit(
        &mut self,
        id: &str,
        packs: &BTreeMap<String, Pack>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        on_cycle: &mut BTreeSet<String>,
    ) {
        if let Some(pos) = path.iter().position(|p| p == id) {
            let mut cycle: Vec<String> = path[pos..].to_vec();
            if cycle.iter().any(|c| on_cycle.contains(c)) {
                return;
            }
            cycle.push(id.to_owned());
            on_cycle.extend(cycle.iter().cloned());
            let file = packs
                .get(id)
                .map(|p| p.manifest.file.clone())
                .unwrap_or_default();
            self.fail(ContentError::DependencyCycle { file, cycle });
            return;
        }
        if done.contains(id) {
            return;
        }
        let Some(p) = packs.get(id) else {
            return;
        };
        path.push(id.to_owned());
        for d in &p.manifest.depends {
            self.visit(d, packs, path, done, on_cycle);
        }
        path.pop();
        done.insert(id.to_owned());
    }

    /// Reads every `<dir>/*.toml` of every pack (stack order) with `parse`; the first definition of
    /// an id wins, later ones are recorded as hidden overrides.
    fn load_defs<T: Def>(
        &mut self,
        packs: &[Pack],
        kind: AssetKind,
        parse: impl Fn(&mut Src<'_>, &str, &str, &str) -> Result<T, ContentError>,
    ) -> BTreeMap<String, T> {
        let mut out: BTreeMap<String, T> = BTreeMap::new();
        for p in packs {
            let listing = match p.root.list(kind.dir(), "toml") {
                Ok(l) => l,
                Err(e) => {
                    self.fail(e);
                    continue;
                }
            };
            for refused in listing.refused {
                self.warn(ContentWarning::new(
                    p.root.path().join(&refused),
                    0,
                    "",
                    "file name is not a valid asset name (see docs/content.md); not loaded",
                ));
            }
            let mut own: BTreeMap<String, PathBuf> = BTreeMap::new();
            for (_, rel) in listing.files {
                let (file, text) = match p.root.read_text(&rel, kind, self.limits.limit(kind)) {
                    Ok(t) => t,
                    Err(e) => {
                        self.fail(e);
                        continue;
                    }
                };
                let mut src = Src::new(&file, &text);
                let parsed = parse(&mut src, &text, &p.manifest.id, &p.manifest.namespace);
                self.warnings.append(&mut src.warnings);
                let def = match parsed {
                    Ok(d) => d,
                    Err(e) => {
                        self.fail(e);
                        continue;
                    }
                };
                let id = def.id().to_owned();
                if let Some(first) = own.get(&id) {
                    self.fail(ContentError::DuplicateDef {
                        kind: T::LABEL,
                        id,
                        first: first.clone(),
                        second: file,
                    });
                    continue;
                }
                own.insert(id.clone(), def.file().to_owned());
                if let Some(winner) = out.get(&id) {
                    let o = Override {
                        kind: T::LABEL,
                        id,
                        winner: winner.pack().to_owned(),
                        hidden: p.manifest.id.clone(),
                    };
                    tracing::info!(
                        "{} {} from pack {} overrides the one in pack {}",
                        T::LABEL,
                        o.id,
                        o.winner,
                        o.hidden
                    );
                    self.overrides.push(o);
                    continue;
                }
                out.insert(id, def);
            }
        }
        out
    }
}

/// Checks every weapon's seeker head against the sensor index: an unknown id warns and is cleared
/// (the weapon keeps loading and flies without a head, as an unknown entity sensor is dropped from
/// its suite), and a head of the wrong channel (an IR seeker looking through a radar) warns.
fn resolve_seekers(
    ld: &mut Loader,
    weapons: &mut BTreeMap<String, WeaponDef>,
    sensors: &BTreeMap<String, SensorDef>,
) {
    for w in weapons.values_mut() {
        let line = w.lines.seeker_sensor;
        let Some(seeker) = w.seeker.as_mut() else {
            continue;
        };
        let Some(id) = seeker.sensor_id.clone() else {
            continue;
        };
        let key = match seeker.table {
            crate::weapon::GuidanceTable::Seeker => "seeker.sensor_id",
            crate::weapon::GuidanceTable::Guidance => "guidance.sensor_id",
        };
        match sensors.get(&id) {
            None => {
                ld.warn(ContentWarning::new(
                    &w.file,
                    line,
                    key,
                    format!(
                        "unknown sensor {id:?}: the weapon has no seeker head (it flies unguided)"
                    ),
                ));
                seeker.sensor_id = None;
            }
            Some(s) => {
                if let Some(want) = seeker.kind.sensor_type()
                    && want != s.kind
                {
                    ld.warn(ContentWarning::new(
                        &w.file,
                        line,
                        key,
                        format!(
                            "a {:?} seeker looks through {id:?}, a {:?} sensor; the head sees the wrong signature",
                            seeker.kind, s.kind
                        ),
                    ));
                }
            }
        }
    }
}

/// Loads, validates and compiles one flight model.
pub(crate) fn load_flight_model(
    packs: &[Pack],
    limits: AssetLimits,
    name: &str,
) -> Result<(Arc<AircraftModel>, Vec<ContentWarning>), Vec<ContentError>> {
    let r = resolve_in(packs, AssetKind::FlightModel, name).map_err(|e| vec![e.into()])?;
    let bytes =
        read_resolved(packs, limits, AssetKind::FlightModel, &r).map_err(|e| vec![e.into()])?;
    let file = match &r {
        ResolvedAsset::Builtin(f) => PathBuf::from(f.path),
        ResolvedAsset::File { path, .. } => path.clone(),
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        vec![ContentError::Syntax {
            file: file.clone(),
            line: 1,
            message: format!("file is not UTF-8 ({e})"),
        }]
    })?;
    let parsed = parse_flight_model(&file, &text).map_err(|source| {
        vec![ContentError::FlightModelSchema {
            asset: name.to_owned(),
            source,
        }]
    })?;
    let mut warnings: Vec<ContentWarning> = parsed.warnings.into_iter().map(Into::into).collect();
    let mut errors = Vec::new();
    for f in validate(&parsed.value) {
        match f.severity {
            Severity::Warning => {
                warnings.push(ContentWarning::new(f.file, f.line, f.key, f.message))
            }
            Severity::Error => errors.push(ContentError::FlightModelInvalid {
                asset: name.to_owned(),
                file: f.file,
                line: f.line,
                key: f.key,
                problem: f.message,
            }),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let model = AircraftModel::from_def(&parsed.value).map_err(|e| {
        vec![ContentError::FlightModelInvalid {
            asset: name.to_owned(),
            file: file.clone(),
            line: 1,
            key: e.key,
            problem: e.problem,
        }]
    })?;
    Ok((Arc::new(model), warnings))
}

impl Content {
    /// Loads the builtin layer and every pack the options name.
    pub fn load(opts: &LoadOptions) -> Result<Content, LoadFailure> {
        let mut ld = Loader {
            policy: opts.on_error,
            limits: opts.limits,
            errors: Vec::new(),
            warnings: Vec::new(),
            overrides: Vec::new(),
        };

        // Packs.
        let mut seen_roots: BTreeSet<PathBuf> = BTreeSet::new();
        let mut by_id: BTreeMap<String, Pack> = BTreeMap::new();
        for (dir, from_mods) in ld.discover(opts) {
            let Some(pack) = ld.open_pack(&dir, from_mods) else {
                continue;
            };
            if !seen_roots.insert(pack.root.path().to_owned()) {
                tracing::debug!(dir = %dir.display(), "pack directory named twice; loaded once");
                continue;
            }
            if let Some(first) = by_id.get(&pack.manifest.id) {
                let e = ContentError::DuplicatePack {
                    id: pack.manifest.id.clone(),
                    first: first.manifest.file.clone(),
                    second: pack.manifest.file.clone(),
                };
                ld.fail(e);
                continue;
            }
            by_id.insert(pack.manifest.id.clone(), pack);
        }
        ld.check_dependencies(&mut by_id);
        let mut namespaces: BTreeMap<String, String> = BTreeMap::new();
        for (id, p) in &by_id {
            if let Some(other) = namespaces.insert(p.manifest.namespace.clone(), id.clone()) {
                ld.warnings.push(ContentWarning::new(
                    &p.manifest.file,
                    0,
                    "mod.namespace",
                    format!(
                        "namespace {:?} is also used by pack {other:?}; their definitions share one vocabulary and override each other by priority",
                        p.manifest.namespace
                    ),
                ));
            }
        }
        let mut packs: Vec<Pack> = by_id.into_values().collect();
        packs.sort_by(|a, b| {
            b.manifest
                .priority
                .cmp(&a.manifest.priority)
                .then_with(|| a.manifest.id.cmp(&b.manifest.id))
        });
        for p in &packs {
            tracing::info!(
                pack = %p.manifest.id,
                version = %p.manifest.version,
                priority = p.manifest.priority,
                root = %p.root.path().display(),
                "content pack mounted"
            );
        }

        // Definitions.
        let mut sensors = ld.load_defs(&packs, AssetKind::SensorDef, parse_sensor);
        let mut weapons = ld.load_defs(&packs, AssetKind::WeaponDef, parse_weapon);
        // Builtin sensors and weapons (the eyeball, the trainer's gun): the `builtin` namespace is
        // reserved, so no pack def can share an id with them.
        let builtin_defs = add_builtin_defs(&mut sensors, AssetKind::SensorDef, parse_sensor)
            .and_then(|()| add_builtin_defs(&mut weapons, AssetKind::WeaponDef, parse_weapon));
        if let Err(problems) = builtin_defs {
            return Err(LoadFailure {
                errors: vec![ContentError::Builtin(problems)],
                warnings: ld.warnings,
            });
        }
        resolve_seekers(&mut ld, &mut weapons, &sensors);
        let entities = ld.load_defs(&packs, AssetKind::EntityDef, parse_entity);

        // Builtin types, always first and in a fixed order.
        let mut types: Vec<EntityType> = Vec::new();
        let mut flight_models: BTreeMap<String, Arc<AircraftModel>> = BTreeMap::new();
        let mut failed_models: BTreeMap<String, String> = BTreeMap::new();
        for f in builtin::FILES
            .iter()
            .filter(|f| f.kind == AssetKind::EntityDef)
        {
            let path = Path::new(f.path);
            let mut src = Src::new(path, f.text);
            let def = match parse_entity(&mut src, f.text, BUILTIN_NAMESPACE, BUILTIN_NAMESPACE) {
                Ok(d) => d,
                Err(e) => {
                    return Err(LoadFailure {
                        errors: vec![ContentError::Builtin(e.to_string())],
                        warnings: ld.warnings,
                    });
                }
            };
            if !src.warnings.is_empty() {
                let w: Vec<String> = src.warnings.iter().map(ToString::to_string).collect();
                return Err(LoadFailure {
                    errors: vec![ContentError::Builtin(w.join("; "))],
                    warnings: ld.warnings,
                });
            }
            let errors_before = ld.errors.len();
            match Self::resolve_type(
                &mut ld,
                &packs,
                &weapons,
                &sensors,
                &mut flight_models,
                &mut failed_models,
                def,
                TypeSource::Builtin,
            ) {
                Some(t) => types.push(t),
                None => {
                    let errors = ld
                        .errors
                        .split_off(errors_before)
                        .into_iter()
                        .map(|e| ContentError::Builtin(e.to_string()))
                        .collect();
                    return Err(LoadFailure {
                        errors,
                        warnings: ld.warnings,
                    });
                }
            }
        }
        for (_, def) in entities {
            let source = TypeSource::Pack(def.pack.clone());
            if let Some(t) = Self::resolve_type(
                &mut ld,
                &packs,
                &weapons,
                &sensors,
                &mut flight_models,
                &mut failed_models,
                def,
                source,
            ) {
                types.push(t);
            }
        }

        if ld.policy == ErrorPolicy::Fail && !ld.errors.is_empty() {
            return Err(LoadFailure {
                errors: ld.errors,
                warnings: ld.warnings,
            });
        }
        let index = types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.def.id.clone(), i as u32))
            .collect();
        Ok(Content {
            packs,
            types,
            index,
            weapons,
            sensors,
            flight_models,
            limits: ld.limits,
            report: LoadReport {
                warnings: ld.warnings,
                errors: ld.errors,
                overrides: ld.overrides,
            },
        })
    }

    /// Only the builtin layer (no packs).
    pub fn builtin() -> Result<Content, LoadFailure> {
        Self::load(&LoadOptions::default())
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_type(
        ld: &mut Loader,
        packs: &[Pack],
        weapons: &BTreeMap<String, WeaponDef>,
        sensors: &BTreeMap<String, SensorDef>,
        models: &mut BTreeMap<String, Arc<AircraftModel>>,
        failed: &mut BTreeMap<String, String>,
        mut def: EntityDef,
        source: TypeSource,
    ) -> Option<EntityType> {
        let file = def.file.clone();
        let is_pack = source != TypeSource::Builtin;

        // Flight model: required to resolve when named.
        let mut flight_model = None;
        if let Some(name) = def.flight_model.clone() {
            if let Some(m) = models.get(&name) {
                flight_model = Some(m.clone());
            } else if let Some(why) = failed.get(&name) {
                ld.fail(ContentError::FlightModelInvalid {
                    asset: name.clone(),
                    file: file.clone(),
                    line: def.lines.flight_model,
                    key: "entity.flight_model".into(),
                    problem: format!("the flight model failed to load ({why})"),
                });
                return None;
            } else {
                match load_flight_model(packs, ld.limits, &name) {
                    Ok((m, warnings)) => {
                        ld.warnings.extend(warnings);
                        models.insert(name.clone(), m.clone());
                        flight_model = Some(m);
                    }
                    Err(errors) => {
                        let first = errors.first().map(ToString::to_string).unwrap_or_default();
                        failed.insert(name.clone(), first);
                        for e in errors {
                            let e = match e {
                                ContentError::Asset(AssetError::NotFound { .. }) => {
                                    ContentError::FlightModelMissing {
                                        file: file.clone(),
                                        line: def.lines.flight_model,
                                        asset: name.clone(),
                                    }
                                }
                                other => other,
                            };
                            ld.fail(e);
                        }
                        return None;
                    }
                }
            }
        } else if is_pack && matches!(def.category, Category::AirVehicle | Category::Player) {
            ld.warn(ContentWarning::new(
                &file,
                0,
                "entity.flight_model",
                "an air vehicle without a flight model does not fly (it spawns as a static placeholder)",
            ));
        }

        // Optional assets: absent means a placeholder, an unsafe path is an error.
        let optional = [
            (
                AssetKind::Mesh,
                def.mesh.clone(),
                def.lines.mesh,
                "entity.mesh",
                "clients draw the builtin placeholder shape",
            ),
            (
                AssetKind::Mesh,
                def.cockpit.clone(),
                def.lines.cockpit,
                "entity.cockpit",
                "clients use their builtin cockpit view",
            ),
            (
                AssetKind::Mesh,
                def.damage_mesh.clone(),
                def.lines.damage_mesh,
                "damage_mesh",
                "no damage mesh is shown",
            ),
            (
                AssetKind::AiScript,
                def.ai_script.clone(),
                def.lines.ai_script,
                "entity.ai_script",
                "the type spawns without scripted AI",
            ),
            (
                AssetKind::Manual,
                def.manual.clone(),
                def.lines.manual,
                "entity.manual",
                "no manual page",
            ),
        ];
        for (kind, name, line, key, consequence) in optional {
            let Some(name) = name else { continue };
            match resolve_in(packs, kind, &name) {
                Ok(_) => {}
                Err(AssetError::NotFound { looked_for, .. }) => ld.warn(ContentWarning::new(
                    &file,
                    line,
                    key,
                    format!(
                        "{} {name:?} not found (looked for {looked_for}); {consequence}",
                        kind.label()
                    ),
                )),
                Err(e) => {
                    ld.fail(e.into());
                    return None;
                }
            }
        }

        // Sensors: unknown ids warn and are dropped.
        let mut kept = Vec::with_capacity(def.sensors.len());
        for (i, s) in def.sensors.iter().enumerate() {
            if sensors.contains_key(s) {
                kept.push(s.clone());
            } else {
                let line = def.lines.sensors.get(i).copied().unwrap_or(0);
                ld.warn(ContentWarning::new(
                    &file,
                    line,
                    format!("entity.sensors[{i}]"),
                    format!("unknown sensor {s:?} (ignored; the rest of the suite is kept)"),
                ));
            }
        }
        def.sensors = kept;

        // Hardpoints and the default loadout.
        let mut payload = Payload::default();
        for (h_i, h) in def.hardpoints.iter().enumerate() {
            for (a_i, a) in h.allowed.iter().enumerate() {
                if !weapons.contains_key(a) {
                    let line = def
                        .lines
                        .allowed
                        .get(h_i)
                        .and_then(|l| l.get(a_i))
                        .copied()
                        .unwrap_or(0);
                    ld.warn(ContentWarning::new(
                        &file,
                        line,
                        format!("hardpoints[{h_i}].allowed[{a_i}]"),
                        format!("unknown weapon {a:?}; the station cannot carry it"),
                    ));
                }
            }
            if let Some(d) = &h.default {
                match weapons.get(d) {
                    Some(w) => {
                        payload.mass_kg += w.mass_kg;
                        payload.cd0 += w.drag_cd0;
                    }
                    None => {
                        ld.fail(ContentError::UnknownDefaultWeapon {
                            file: file.clone(),
                            line: h.default_line,
                            key: format!("hardpoints[{h_i}].default"),
                            weapon: d.clone(),
                        });
                        return None;
                    }
                }
            }
        }
        Some(EntityType {
            def,
            payload,
            flight_model,
            source,
        })
    }
}
