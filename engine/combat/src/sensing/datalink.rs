//! The team picture and the radar warning receiver, from contacts only (never ground truth):
//! fused tracks deduplicated by target with an honest IFF, and RWR strobes by inverting who is
//! painting whom. Shaped to map field for field onto fl-protocol's `MsgDatalink`
//! (`DatalinkTrack`, `DatalinkThreat`); the enums mirror the wire's ordinals.
//!
//! IFF (the C++ original's rule, #527): a friend squawks, so it is Friend as soon as it is held
//! at all; a hostile is Foe only once positively identified — seen by an eye (a visual contact)
//! or held in a firing-quality lock; everything else (neutrals, unidentified hostiles) is
//! Unknown. Must not: read the world, keep state, or depend on the order contacts arrive in.

use super::contacts::Contact;
use super::detect::EntityId;
use super::spec::SensorKind;
use super::track::ContactState;
use fl_flight::math::Vec3;

/// Most tracks one datalink message carries (the wire's `kMaxDatalinkTracks`).
pub const MAX_DATALINK_TRACKS: usize = 48;
/// Most RWR strobes one datalink message carries (the wire's `kMaxDatalinkThreats`).
pub const MAX_DATALINK_THREATS: usize = 16;
/// `DatalinkTrack::flags`: a firing-quality (STT) lock somewhere on the team.
pub const TRACK_FLAG_FIRING_QUALITY: u8 = 0x01;
/// `DatalinkTrack::flags`: this peer's own sensors hold the target.
pub const TRACK_FLAG_OWN_SENSOR: u8 = 0x02;

/// The display-safe identity of a track or emitter. Discriminants are the wire's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Identification {
    /// Held, but neither a friend nor an identified foe.
    Unknown = 0,
    /// Answered IFF with a friendly code.
    Friend = 1,
    /// Hostile and positively identified.
    Foe = 2,
}

/// An RWR strobe's urgency. Discriminants are the wire's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum ThreatLevel {
    /// An emitter's search or TWS scan has you.
    Search = 0,
    /// An emitter holds a firing-quality lock on you.
    Lock = 1,
    /// A radar-guided missile is guiding on you.
    Launch = 2,
}

/// How one side stands towards another (the caller's faction registry decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// Same side or allied.
    Friendly,
    /// Neither.
    Neutral,
    /// Enemies.
    Hostile,
}

/// The fallback relation when no coalition table is loaded: faction 0 is neutral to all, the
/// same non-zero faction is friendly, two different non-zero factions are hostile.
pub fn affiliation(a: u16, b: u16) -> Relation {
    if a == 0 || b == 0 {
        Relation::Neutral
    } else if a == b {
        Relation::Friendly
    } else {
        Relation::Hostile
    }
}

/// The IFF rule (see the module doc). `kinds` is a contact's sensor-kind mask.
pub fn classify_iff(rel: Relation, kinds: u8, firing_quality: bool) -> Identification {
    match rel {
        Relation::Friendly => Identification::Friend,
        Relation::Hostile if kinds & SensorKind::Visual.bit() != 0 || firing_quality => {
            Identification::Foe
        }
        Relation::Hostile | Relation::Neutral => Identification::Unknown,
    }
}

/// One target of a team's fused picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FusedTrack {
    /// The target (the wire's `targetIdx` and `targetGen`).
    pub target: EntityId,
    /// The freshest contributor's state (ties: the stronger).
    pub state: ContactState,
    /// IFF from the team's relation to the target and how the team holds it.
    pub ident: Identification,
    /// Kinds of sensor holding it anywhere on the team (the wire's `sensorTypeMask`).
    pub kinds: u8,
    /// Anyone on the team holds a firing-quality lock.
    pub firing_quality: bool,
    /// The receiving peer's own sensors hold it (set by [`picture_for`]).
    pub own: bool,
    /// Last-known position from the freshest contributor, m.
    pub position: Vec3,
    /// Last-known velocity, m/s.
    pub velocity: Vec3,
    /// Freshest sighting tick.
    pub last_seen_tick: u64,
}

impl FusedTrack {
    /// The wire's `DatalinkTrack::flags`.
    pub fn flags(&self) -> u8 {
        (if self.firing_quality {
            TRACK_FLAG_FIRING_QUALITY
        } else {
            0
        }) | if self.own { TRACK_FLAG_OWN_SENSOR } else { 0 }
    }
}

/// Fuses a team's contact tables into one picture, deduplicated by target and sorted by it.
/// The merge is order-independent: kinds and locks are OR-ed, the freshest sighting (then the
/// stronger state, then the lexically smaller position bits) supplies state and kinematics.
/// `relation` gives the team's relation to a target.
pub fn fuse_team<'a>(
    tables: impl IntoIterator<Item = &'a [Contact]>,
    relation: impl Fn(EntityId) -> Relation,
) -> Vec<FusedTrack> {
    let mut all: Vec<&Contact> = tables
        .into_iter()
        .flatten()
        .filter(|c| c.state.held())
        .collect();
    // Target, then the best contributor first: freshest, strongest, then a total order on the
    // position so equal-rank ties do not depend on input order.
    all.sort_by(|a, b| {
        a.target
            .cmp(&b.target)
            .then(b.last_seen_tick.cmp(&a.last_seen_tick))
            .then(b.state.rank().cmp(&a.state.rank()))
            .then(a.position.x.total_cmp(&b.position.x))
            .then(a.position.y.total_cmp(&b.position.y))
            .then(a.position.z.total_cmp(&b.position.z))
    });
    let mut out: Vec<FusedTrack> = Vec::new();
    for c in all {
        match out.last_mut() {
            Some(t) if t.target == c.target => {
                t.kinds |= c.kinds;
                t.firing_quality |= c.firing_quality;
            }
            _ => out.push(FusedTrack {
                target: c.target,
                state: c.state,
                ident: Identification::Unknown,
                kinds: c.kinds,
                firing_quality: c.firing_quality,
                own: false,
                position: c.position,
                velocity: c.velocity,
                last_seen_tick: c.last_seen_tick,
            }),
        }
    }
    for t in &mut out {
        t.ident = classify_iff(relation(t.target), t.kinds, t.firing_quality);
    }
    out
}

/// One peer's share of its team's picture: `own` marked from the peer's own contacts (sorted by
/// target, as [`super::Sensing::contacts`] gives them), the peer's
/// own aircraft left out, at most `max` tracks (its own locks first, then locks, then the nearest
/// to `origin`; ties by id), sorted by target.
pub fn picture_for(
    peer: EntityId,
    own_contacts: &[Contact],
    fused: &[FusedTrack],
    origin: Vec3,
    max: usize,
) -> Vec<FusedTrack> {
    let mut out: Vec<FusedTrack> = fused
        .iter()
        .filter(|t| t.target != peer)
        .map(|t| FusedTrack {
            own: own_contacts
                .binary_search_by_key(&t.target, |c| c.target)
                .is_ok_and(|i| own_contacts[i].state.held()),
            ..*t
        })
        .collect();
    if out.len() > max {
        let key = |t: &FusedTrack| {
            let d = t.position - origin;
            (
                !(t.own && t.state == ContactState::Locked),
                t.state != ContactState::Locked,
                d.dot(d),
                t.target,
            )
        };
        out.sort_by(|a, b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.cmp(&kb.0)
                .then(ka.1.cmp(&kb.1))
                .then(ka.2.total_cmp(&kb.2))
                .then(ka.3.cmp(&kb.3))
        });
        out.truncate(max);
        out.sort_by_key(|t| t.target);
    }
    out
}

/// An observer whose contacts may be painting someone.
#[derive(Debug, Clone, Copy)]
pub struct Emitter<'a> {
    /// Who.
    pub id: EntityId,
    /// Where (the strobe's bearing).
    pub position: Vec3,
    /// Its contacts after this check (`Contact::painting` says which it illuminates).
    pub contacts: &'a [Contact],
}

/// A radar-guided missile guiding on a target: its illuminator (the launcher, for SARH) or the
/// missile itself once its own seeker radiates (ARH).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Launch {
    /// The entity radiating at the target.
    pub emitter: EntityId,
    /// Where it is.
    pub emitter_position: Vec3,
    /// Who it is guiding on.
    pub target: EntityId,
}

/// One "X is painting Y" fact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strobe {
    /// Who hears it.
    pub receiver: EntityId,
    /// Who radiates.
    pub emitter: EntityId,
    /// Radar or laser.
    pub channel: SensorKind,
    /// How hard.
    pub level: ThreatLevel,
    /// The emitter's position, m.
    pub position: Vec3,
}

/// Every strobe in the world, by inverting the emitters' contacts: an emitter that illuminates a
/// target this check (search or TWS: Search; STT: Lock) and every guiding launch (Launch, on the
/// radar channel). One strobe per (receiver, emitter, channel) at its highest level,
/// sorted by (receiver, emitter, channel). Serial and O(total contacts · log).
pub fn invert_emissions<'a>(
    emitters: impl IntoIterator<Item = Emitter<'a>>,
    launches: &[Launch],
) -> Vec<Strobe> {
    let mut out = Vec::new();
    for e in emitters {
        for c in e.contacts {
            if c.target == e.id {
                continue;
            }
            for channel in [SensorKind::Radar, SensorKind::Laser] {
                if c.painting & channel.bit() == 0 {
                    continue;
                }
                let level = if c.firing_quality && channel == SensorKind::Radar {
                    ThreatLevel::Lock
                } else {
                    ThreatLevel::Search
                };
                out.push(Strobe {
                    receiver: c.target,
                    emitter: e.id,
                    channel,
                    level,
                    position: e.position,
                });
            }
        }
    }
    for l in launches {
        out.push(Strobe {
            receiver: l.target,
            emitter: l.emitter,
            channel: SensorKind::Radar,
            level: ThreatLevel::Launch,
            position: l.emitter_position,
        });
    }
    out.sort_by(|a, b| {
        (a.receiver, a.emitter, a.channel)
            .cmp(&(b.receiver, b.emitter, b.channel))
            .then(b.level.cmp(&a.level))
    });
    out.dedup_by(|later, first| {
        (later.receiver, later.emitter, later.channel)
            == (first.receiver, first.emitter, first.channel)
    });
    out
}

/// One receiver's RWR picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RwrStrobe {
    /// The emitter (the wire's `emitterIdx`/`emitterGen`).
    pub emitter: EntityId,
    /// Radar or laser (the wire's `channel`).
    pub channel: SensorKind,
    /// How hard.
    pub level: ThreatLevel,
    /// The receiver's relation to the emitter, as an identity: a friendly emitter reads Friend
    /// (benign), a hostile one Foe (an RWR knows an emitter's type), a neutral Unknown.
    pub ident: Identification,
    /// The emitter's position, m.
    pub position: Vec3,
}

/// What `receiver` (at `origin`) hears, from [`invert_emissions`]'s output: at most `max`
/// strobes (launches, then locks, then the nearest; ties by emitter), sorted by emitter.
pub fn rwr_for(
    receiver: EntityId,
    origin: Vec3,
    strobes: &[Strobe],
    relation: impl Fn(EntityId) -> Relation,
    max: usize,
) -> Vec<RwrStrobe> {
    let start = strobes.partition_point(|s| s.receiver < receiver);
    let end = strobes.partition_point(|s| s.receiver <= receiver);
    let mut out: Vec<RwrStrobe> = strobes[start..end]
        .iter()
        .map(|s| RwrStrobe {
            emitter: s.emitter,
            channel: s.channel,
            level: s.level,
            ident: match relation(s.emitter) {
                Relation::Friendly => Identification::Friend,
                Relation::Hostile => Identification::Foe,
                Relation::Neutral => Identification::Unknown,
            },
            position: s.position,
        })
        .collect();
    if out.len() > max {
        let d2 = |s: &RwrStrobe| {
            let d = s.position - origin;
            d.dot(d)
        };
        out.sort_by(|a, b| {
            b.level
                .cmp(&a.level)
                .then(d2(a).total_cmp(&d2(b)))
                .then((a.emitter, a.channel).cmp(&(b.emitter, b.channel)))
        });
        out.truncate(max);
        out.sort_by_key(|s| (s.emitter, s.channel));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(target: u32, state: ContactState, kinds: u8, tick: u64, x: f64) -> Contact {
        Contact {
            target: EntityId::new(target, 1),
            state,
            kinds,
            painting: 0,
            firing_quality: false,
            position: Vec3::new(x, 0.0, 0.0),
            velocity: Vec3::ZERO,
            range_m: 1000.0,
            first_detected_tick: tick,
            last_seen_tick: tick,
        }
    }

    #[test]
    fn iff_is_honest() {
        let radar = SensorKind::Radar.bit();
        let eye = SensorKind::Visual.bit();
        assert_eq!(
            classify_iff(Relation::Friendly, radar, false),
            Identification::Friend
        );
        assert_eq!(
            classify_iff(Relation::Hostile, radar, false),
            Identification::Unknown
        );
        assert_eq!(
            classify_iff(Relation::Hostile, radar | eye, false),
            Identification::Foe
        );
        assert_eq!(
            classify_iff(Relation::Hostile, radar, true),
            Identification::Foe
        );
        assert_eq!(
            classify_iff(Relation::Neutral, eye, true),
            Identification::Unknown
        );
        assert_eq!(affiliation(0, 3), Relation::Neutral);
        assert_eq!(affiliation(2, 2), Relation::Friendly);
        assert_eq!(affiliation(1, 2), Relation::Hostile);
    }

    #[test]
    fn fusion_dedups_and_is_order_independent() {
        let radar = SensorKind::Radar.bit();
        let eye = SensorKind::Visual.bit();
        let a = vec![
            contact(5, ContactState::Detected, radar, 10, 1.0),
            contact(7, ContactState::Coasting, radar, 4, 2.0),
        ];
        let mut lock = contact(7, ContactState::Locked, radar, 9, 3.0);
        lock.firing_quality = true;
        let b = vec![contact(5, ContactState::Detected, eye, 8, 9.0), lock];
        let rel = |_| Relation::Hostile;
        let ab = fuse_team([a.as_slice(), b.as_slice()], rel);
        let ba = fuse_team([b.as_slice(), a.as_slice()], rel);
        assert_eq!(ab, ba);
        assert_eq!(ab.len(), 2);
        // Target 5: the freshest position, both kinds, a visual ID.
        assert_eq!(ab[0].position.x, 1.0);
        assert_eq!(ab[0].kinds, radar | eye);
        assert_eq!(ab[0].ident, Identification::Foe);
        // Target 7: the lock is fresher than the coast.
        assert_eq!(ab[1].state, ContactState::Locked);
        assert_eq!(ab[1].flags(), TRACK_FLAG_FIRING_QUALITY);
        // Own marking and capping.
        let p = picture_for(EntityId::new(99, 1), &a, &ab, Vec3::ZERO, 48);
        assert!(p.iter().all(|t| t.own));
        let p = picture_for(EntityId::new(5, 1), &b, &ab, Vec3::ZERO, 48);
        assert_eq!(p.len(), 1, "a peer is not its own track");
        let p = picture_for(EntityId::new(99, 1), &[], &ab, Vec3::ZERO, 1);
        assert_eq!(p.len(), 1);
        assert_eq!(
            p[0].target,
            EntityId::new(7, 1),
            "a lock outranks a nearer detect"
        );
    }

    #[test]
    fn rwr_inverts_painting_and_ranks_launches_first() {
        let me = EntityId::new(1, 1);
        let radar = SensorKind::Radar.bit();
        let mut search = contact(1, ContactState::Detected, radar, 5, 0.0);
        search.painting = radar;
        let mut stt = search;
        stt.state = ContactState::Locked;
        stt.firing_quality = true;
        let passive = contact(1, ContactState::Detected, SensorKind::Ir.bit(), 5, 0.0);
        let e1 = [search];
        let e2 = [stt];
        let e3 = [passive];
        let emitters = [
            Emitter {
                id: EntityId::new(10, 1),
                position: Vec3::new(1000.0, 0.0, 0.0),
                contacts: &e1,
            },
            Emitter {
                id: EntityId::new(11, 1),
                position: Vec3::new(5000.0, 0.0, 0.0),
                contacts: &e2,
            },
            Emitter {
                id: EntityId::new(12, 1),
                position: Vec3::new(500.0, 0.0, 0.0),
                contacts: &e3,
            },
        ];
        let launch = Launch {
            emitter: EntityId::new(11, 1),
            emitter_position: Vec3::new(5000.0, 0.0, 0.0),
            target: me,
        };
        let strobes = invert_emissions(emitters, &[launch]);
        assert_eq!(
            strobes.len(),
            2,
            "IR is silent; the launch merges with the lock"
        );
        let rwr = rwr_for(me, Vec3::ZERO, &strobes, |_| Relation::Hostile, 16);
        assert_eq!(rwr.len(), 2);
        assert_eq!(rwr[0].level, ThreatLevel::Search);
        assert_eq!(rwr[1].level, ThreatLevel::Launch);
        assert_eq!(rwr[1].ident, Identification::Foe);
        let top = rwr_for(me, Vec3::ZERO, &strobes, |_| Relation::Hostile, 1);
        assert_eq!(
            top[0].level,
            ThreatLevel::Launch,
            "the launch, though farther"
        );
        assert!(
            rwr_for(
                EntityId::new(2, 1),
                Vec3::ZERO,
                &strobes,
                |_| Relation::Hostile,
                16
            )
            .is_empty()
        );
    }
}
