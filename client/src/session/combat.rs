//! Combat events as the session hears them (`MsgCombatEvent`, reliable): the kill feed
//! (broadcast kill records) and the peer's own tallies (the unicast `Stats` and `Shots`
//! records, each replacing the last). Unknown record types are skipped, as the spec asks.
//! Must not: judge anything — the server is the truth; this only keeps what it said.

use std::time::Duration;

use fl_protocol::enums::{CombatEventType, WeaponType};
use fl_protocol::msg::combat::{CombatEvent, Datalink};

/// Kill records kept (the oldest go first).
pub const MAX_KILLS: usize = 256;
/// `instigatorIdx` / owner value meaning none.
const NONE: u32 = 0xFFFF_FFFF;

/// One kill as the server broadcast it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kill {
    /// The destroyed entity (index, wire generation).
    pub subject: (u32, u16),
    /// The credited entity; `None`: the environment.
    pub instigator: Option<(u32, u16)>,
    /// The credited weapon class, if known.
    pub weapon: Option<WeaponType>,
    /// The instigator's owning peer (`None`: AI, server or environment).
    pub instigator_peer: Option<u32>,
    /// The subject's owning peer.
    pub subject_peer: Option<u32>,
    /// Session time it was heard (the kill feed fades by it).
    pub received_at: Duration,
}

/// The peer's own tallies, as last told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tallies {
    pub kills: u32,
    pub losses: u32,
    pub score: i32,
    pub shots: u32,
    pub hits: u32,
    pub damage_dealt: i32,
}

/// What the session heard of the fight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CombatLog {
    pub kills: Vec<Kill>,
    pub tallies: Tallies,
    /// Records of types this build does not know (skipped).
    pub unknown_records: u64,
    /// The latest team picture (`MsgDatalink`, unreliable, ~6 Hz): the newest tick wins, an
    /// older datagram arriving late is dropped.
    pub datalink: Option<Datalink>,
}

impl CombatLog {
    /// Keeps `dl` when it is newer than the picture held.
    pub(super) fn on_datalink(&mut self, dl: Datalink) {
        if self
            .datalink
            .as_ref()
            .is_none_or(|old| dl.tick_index >= old.tick_index)
        {
            self.datalink = Some(dl);
        }
    }

    /// Forgets the picture (the own aircraft changed or the session left the world).
    pub fn clear_datalink(&mut self) {
        self.datalink = None;
    }

    pub(super) fn on_event(&mut self, ev: &CombatEvent, now: Duration) {
        for r in &ev.records {
            match r.event_type() {
                Some(CombatEventType::Kill) => {
                    if self.kills.len() >= MAX_KILLS {
                        self.kills.remove(0);
                    }
                    let peer = |p: u32| (p != NONE).then_some(p);
                    self.kills.push(Kill {
                        subject: (r.subject_idx, r.subject_gen),
                        instigator: (r.instigator_idx != NONE)
                            .then_some((r.instigator_idx, r.instigator_gen)),
                        weapon: r.weapon_type(),
                        instigator_peer: peer(r.a),
                        subject_peer: peer(r.b),
                        received_at: now,
                    });
                }
                Some(CombatEventType::Stats) => {
                    self.tallies.kills = r.a;
                    self.tallies.losses = r.b;
                    self.tallies.score = r.c;
                }
                Some(CombatEventType::Shots) => {
                    self.tallies.shots = r.a;
                    self.tallies.hits = r.b;
                    self.tallies.damage_dealt = r.c;
                }
                None => self.unknown_records += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_newest_datalink_is_kept() {
        let dl = |tick| Datalink {
            flags: 0,
            tick_index: tick,
            origin: [0.0; 3],
            tracks: Vec::new(),
            threats: Vec::new(),
        };
        let mut log = CombatLog::default();
        assert!(log.datalink.is_none(), "nothing before the first");
        log.on_datalink(dl(20));
        log.on_datalink(dl(10));
        assert_eq!(
            log.datalink.as_ref().map(|d| d.tick_index),
            Some(20),
            "a late one is dropped"
        );
        log.on_datalink(dl(30));
        assert_eq!(log.datalink.as_ref().map(|d| d.tick_index), Some(30));
        log.clear_datalink();
        assert!(log.datalink.is_none());
    }
    use super::*;
    use fl_protocol::msg::combat::CombatEventRecord;

    fn rec(kind: u8, a: u32, b: u32, c: i32) -> CombatEventRecord {
        CombatEventRecord {
            kind,
            weapon_class: WeaponType::Gun.to_u8(),
            subject_idx: 7,
            subject_gen: 2,
            instigator_idx: NONE,
            instigator_gen: 0,
            a,
            b,
            c,
        }
    }

    #[test]
    fn kills_stats_and_shots_are_kept_and_unknown_records_skipped() {
        let mut log = CombatLog::default();
        log.on_event(
            &CombatEvent {
                records: vec![
                    rec(0, NONE, 3, 0),
                    rec(9, 1, 1, 1),
                    rec(1, 2, 1, 20),
                    rec(2, 50, 13, 104),
                ],
            },
            Duration::from_secs(5),
        );
        assert_eq!(log.kills.len(), 1);
        let k = log.kills[0];
        assert_eq!(k.subject, (7, 2));
        assert_eq!(k.instigator, None, "the environment");
        assert_eq!((k.instigator_peer, k.subject_peer), (None, Some(3)));
        assert_eq!(k.received_at, Duration::from_secs(5));
        assert_eq!(log.unknown_records, 1);
        assert_eq!(
            log.tallies,
            Tallies {
                kills: 2,
                losses: 1,
                score: 20,
                shots: 50,
                hits: 13,
                damage_dealt: 104
            }
        );
    }
}
