//! The snapshot pipeline: every live entity is quantized and encoded once per tick, then each
//! peer's packet is assembled from those bodies — interest query, priority/budget scheduling,
//! full or delta per client-acked baselines, despawns, TLVs, compression when it wins — subject
//! to the peer's congestion throttle and the server's tick governor.
//!
//! Owns the per-peer snapshot state; knows nothing of sockets (the caller sends the bytes) or of
//! how entities move (the world hands it their states).

pub mod baseline;
pub mod congestion;
pub mod scheduler;

use crate::pool::EntityId;
use crate::spatial::SpatialIndex;
use baseline::PeerBaselines;
use congestion::{CongestionConfig, CongestionController, TickGovernor};
use fl_net::LinkStats;
use fl_protocol::snapshot::{
    Compression, DEFAULT_COMPRESSION_LEVEL, EncodedEntity, EntityState, HEADER_BYTES, RecordBody,
    RecordKind, SnapshotRecord, SnapshotWriter, origin_for,
};
use fl_protocol::tlv::{EffectRecord, Ext, Extensions, MAX_EFFECTS_PER_SNAPSHOT, OWN_STATE_FORMAT};
use scheduler::{Candidate, Weights, schedule};
use std::collections::VecDeque;

/// An effect waits this long (0.5 s) for a snapshot to carry it, then it is stale and dropped.
pub const EFFECT_MAX_AGE_TICKS: u64 = 30;
/// Most effects waiting per peer (the oldest go first beyond it).
pub const MAX_QUEUED_EFFECTS: usize = 64;

/// One live entity as the pipeline sees it this tick.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotEntity {
    pub id: EntityId,
    pub state: EntityState,
    /// The peer flying it, if a human does.
    pub owner: Option<u32>,
}

/// `[world]` snapshot settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnapshotConfig {
    /// Interest radius (`draw_distance_km` × 1000).
    pub draw_distance_m: f64,
    /// Per-peer byte budget per snapshot; 0 = unlimited (`snapshot_budget_bytes`).
    pub budget_bytes: usize,
    /// zstd the body when it wins (`compress_snapshots`).
    pub compress: bool,
    pub weights: Weights,
    pub congestion: CongestionConfig,
    /// Despawns one snapshot may carry (the rest wait for the next).
    pub max_despawns_per_snapshot: usize,
}

impl Default for SnapshotConfig {
    fn default() -> Self {
        Self {
            draw_distance_m: 200_000.0,
            budget_bytes: 1200,
            compress: true,
            weights: Weights::default(),
            congestion: CongestionConfig::default(),
            max_despawns_per_snapshot: 64,
        }
    }
}

/// The tick's shared, read-only encoding: every entity's bodies, in index order.
#[derive(Debug, Default)]
pub struct TickEncoding {
    pub tick: u64,
    pub entities: Vec<SnapshotEntity>,
    pub encoded: Vec<EncodedEntity>,
    pub spatial: SpatialIndex,
    /// The tick's cosmetic effects with their f64 world positions (`SnapshotEffects`), for each
    /// peer to filter by interest.
    pub effects: Vec<(EffectRecord, [f64; 3])>,
}

impl TickEncoding {
    /// Encodes every entity once (they must be sorted by index).
    pub fn build(&mut self, tick: u64, entities: Vec<SnapshotEntity>, cell_size_m: f64) {
        self.tick = tick;
        self.encoded.clear();
        self.encoded
            .extend(entities.iter().map(|e| EncodedEntity::encode(&e.state)));
        if (self.spatial.cell_size() - cell_size_m).abs() > f64::EPSILON {
            self.spatial = SpatialIndex::new(cell_size_m);
        } else {
            self.spatial.clear();
        }
        // The index holds slot numbers (positions in `entities`), not entity indices, so a query
        // needs no lookup per candidate; slots ascend with entity indices.
        for (slot, e) in entities.iter().enumerate() {
            self.spatial.insert(slot as u32, e.state.position);
        }
        self.entities = entities;
    }

    fn find(&self, index: u32) -> Option<usize> {
        self.entities
            .binary_search_by_key(&index, |e| e.id.index)
            .ok()
    }
}

/// Weight of one tick in the average of the bytes a peer's snapshots used (about 0.25 s).
const USAGE_ALPHA: f64 = 1.0 / 15.0;

/// What the pipeline needs to know about one peer this tick.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerContext {
    /// The peer's aircraft, if it flies one.
    pub own: Option<EntityId>,
    /// Where its interest is centred (own aircraft, else the camera eye).
    pub focus: [f64; 3],
    pub focus_velocity: [f64; 3],
    /// `SnapshotLastAckedSeqNum`: the last input applied for this peer.
    pub last_applied_seq: Option<u32>,
    /// `SnapshotInputTiming`: (target lead in thousandths of a tick, target depth, queued).
    pub input_timing: Option<(i32, u8, u8)>,
    /// Estimated delay in ticks (0 = no estimate: the latency TLVs are omitted).
    pub delay_ticks: u16,
    pub peer_count: u16,
    /// The own aircraft's exact state words (`SnapshotOwnState`).
    pub own_state_words: Option<Vec<f64>>,
    pub link: LinkStats,
}

/// Running counters for one peer.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PeerSnapshotStats {
    pub snapshots: u64,
    pub bytes: u64,
    pub records: u64,
    pub full_records: u64,
    pub compressed: u64,
    pub largest_packet: usize,
    pub skipped_for_rate: u64,
}

/// One peer's snapshot state.
#[derive(Debug)]
pub struct PeerSnapshots {
    pub baselines: PeerBaselines,
    pub congestion: CongestionController,
    pub stats: PeerSnapshotStats,
    next_send_tick: u64,
    /// What the congestion throttle earned and the snapshots did not spend yet: bytes (with a
    /// budget) or fractions of a snapshot (without).
    send_credit: f64,
    /// Bytes sent per tick over the budget, averaged (what the throttle is compared with).
    usage: f64,
    writer: SnapshotWriter,
    candidates: Vec<Candidate>,
    nearby: Vec<u32>,
    packet: Vec<u8>,
    /// Effects inside this peer's interest waiting for a snapshot: (tick queued, record).
    effects: VecDeque<(u64, EffectRecord)>,
}

impl PeerSnapshots {
    pub fn new(cfg: &SnapshotConfig) -> Self {
        Self {
            baselines: PeerBaselines::new(),
            congestion: CongestionController::new(cfg.congestion),
            stats: PeerSnapshotStats::default(),
            next_send_tick: 0,
            send_credit: 1.0,
            usage: 0.0,
            writer: SnapshotWriter::new(),
            candidates: Vec::new(),
            nearby: Vec::new(),
            packet: Vec::new(),
            effects: VecDeque::new(),
        }
    }

    /// Queues the tick's effects inside the peer's interest radius (skipped ticks keep them for
    /// the next snapshot, up to [`EFFECT_MAX_AGE_TICKS`]).
    fn queue_effects(&mut self, enc: &TickEncoding, ctx: &PeerContext, radius_m: f64) {
        let tick = enc.tick;
        while self
            .effects
            .front()
            .is_some_and(|(t, _)| tick.saturating_sub(*t) > EFFECT_MAX_AGE_TICKS)
        {
            self.effects.pop_front();
        }
        for (rec, pos) in &enc.effects {
            if norm(sub(*pos, ctx.focus)) <= radius_m {
                if self.effects.len() >= MAX_QUEUED_EFFECTS {
                    self.effects.pop_front();
                }
                self.effects.push_back((tick, *rec));
            }
        }
    }

    /// Builds this peer's snapshot for the tick, or `None` when its send interval (congestion
    /// or governor) skips this tick. The returned bytes are valid until the next call.
    pub fn build(
        &mut self,
        enc: &TickEncoding,
        ctx: &PeerContext,
        cfg: &SnapshotConfig,
        governor: &TickGovernor,
    ) -> Option<&[u8]> {
        let tick = enc.tick;
        // The byte allowance per tick at full rate: the budget, never above the datagram size.
        let limit = (cfg.budget_bytes > 0).then(|| {
            if ctx.link.max_datagram_size > 0 {
                cfg.budget_bytes.min(ctx.link.max_datagram_size)
            } else {
                cfg.budget_bytes
            }
        });
        if limit.is_some() {
            self.congestion.set_usage(self.usage);
            // What this tick sends is added below; decay it here (a quarter-second average).
            self.usage -= self.usage * USAGE_ALPHA;
        }
        self.congestion.step(tick, &ctx.link);
        self.queue_effects(enc, ctx, cfg.draw_distance_m);
        let own_interval = self.congestion.interval_ticks();
        let gov_interval = governor.interval_ticks();
        let throttle = self.congestion.throttle();
        let ready = match limit {
            // A byte rate: throttle × the budget per tick, saved up to two budgets, so small
            // snapshots still go every tick under a low throttle and large ones wait.
            Some(limit) => {
                let l = limit as f64;
                if self.stats.snapshots == 0 && self.stats.skipped_for_rate == 0 {
                    // The first snapshot of a link goes at once, whole.
                    self.send_credit = l;
                }
                self.send_credit = (self.send_credit + throttle * l).min(2.0 * l);
                self.send_credit >= (cfg.congestion.budget_floor_bytes as f64).min(l)
            }
            // No budget: the throttle is a fraction of the ticks (0.75: three in four).
            None => {
                self.send_credit = (self.send_credit + throttle).min(1.0);
                self.send_credit >= 1.0 - 1e-9
            }
        };
        if tick < self.next_send_tick || !ready {
            self.stats.skipped_for_rate += 1;
            return None;
        }
        if limit.is_none() {
            self.send_credit -= 1.0;
        }
        self.next_send_tick = tick + gov_interval;
        if tick.is_multiple_of(30) {
            self.baselines.prune(tick);
        }

        // The extension block first: its size comes off the budget.
        let mut ext = Extensions::new();
        let _ = ext.push(&Ext::SnapshotPeerCount(ctx.peer_count));
        if ctx.delay_ticks > 0 {
            let ms = (u32::from(ctx.delay_ticks) * 1000 / 60).min(u32::from(u16::MAX)) as u16;
            let _ = ext.push(&Ext::SnapshotPeerLatency(ms));
            let _ = ext.push(&Ext::SnapshotPeerDelayTicks(ctx.delay_ticks));
        }
        if gov_interval > own_interval {
            let _ = ext.push(&Ext::SnapshotServerThrottle {
                load_pct: (governor.load_factor() * 100.0).round().clamp(1.0, 100.0) as u8,
                interval_ticks: gov_interval.min(255) as u8,
            });
        }
        if let Some(seq) = ctx.last_applied_seq {
            let _ = ext.push(&Ext::SnapshotLastAckedSeqNum(seq));
        }
        if let Some((target_lead, depth_ticks, queued)) = ctx.input_timing {
            let _ = ext.push(&Ext::SnapshotInputTiming {
                target_lead,
                depth_ticks,
                queued,
            });
        }
        if !self.effects.is_empty() {
            let n = self.effects.len().min(MAX_EFFECTS_PER_SNAPSHOT);
            let records: Vec<EffectRecord> = self.effects.drain(..n).map(|(_, r)| r).collect();
            let _ = ext.push(&Ext::SnapshotEffects(records));
        }
        let despawns = self.baselines.take_despawns(cfg.max_despawns_per_snapshot);
        if !despawns.is_empty() {
            let _ = ext.push(&Ext::SnapshotDespawn(despawns));
        }
        let own_slot = ctx.own.and_then(|id| {
            enc.find(id.index)
                .filter(|&i| enc.entities[i].id.generation == id.generation)
        });
        if let (Some(id), Some(words), Some(_)) = (ctx.own, &ctx.own_state_words, own_slot) {
            let _ = ext.push(&Ext::SnapshotOwnState {
                entity_idx: id.index,
                entity_gen: id.generation,
                format: OWN_STATE_FORMAT,
                words: words.clone(),
            });
        }

        // The snapshot may use the byte credit the throttle earned, but the budget's floor is
        // for *records*: the extension block (the own exact state alone is ~270 bytes) must not
        // crowd every other aircraft out of a throttled snapshot. Never above the link's
        // datagram size.
        let ext_len = ext.as_bytes().len();
        let budget = limit.map(|limit| {
            let floor = HEADER_BYTES + ext_len + cfg.congestion.budget_floor_bytes;
            (self.send_credit.max(0.0) as usize).max(floor).min(limit)
        });

        // Candidates: the interest set, plus the own entity wherever it is.
        enc.spatial
            .query(ctx.focus, cfg.draw_distance_m, &mut self.nearby);
        if let Some(slot) = own_slot
            && let Err(pos) = self.nearby.binary_search(&(slot as u32))
        {
            self.nearby.insert(pos, slot as u32);
        }
        self.candidates.clear();
        for &slot in &self.nearby {
            let slot = slot as usize;
            let e = &enc.entities[slot];
            let idx = e.id.index;
            let full = self.baselines.needs_full(idx, e.id.generation, tick);
            let body = if full {
                &enc.encoded[slot].full
            } else {
                &enc.encoded[slot].delta
            };
            let rel = sub(e.state.position, ctx.focus);
            let dist = norm(rel);
            let closing = if dist > 1e-6 {
                -dot(sub(e.state.velocity, ctx.focus_velocity), rel) / dist
            } else {
                0.0
            };
            self.candidates.push(Candidate {
                index: idx,
                slot,
                distance_m: dist,
                closing_mps: closing,
                waited_ticks: self.baselines.age(idx, tick).unwrap_or(10_000),
                player_owned: e.owner.is_some(),
                cost: body.as_bytes().len() + 1,
            });
        }
        let own_index = own_slot.map(|s| enc.entities[s].id.index);
        let order = schedule(&self.candidates, own_index, budget, &cfg.weights);

        self.writer.begin();
        let mut records = 0u64;
        let mut fulls = 0u64;
        for ci in order {
            let idx = self.candidates[ci].index;
            let slot = self.candidates[ci].slot;
            let e = &enc.entities[slot];
            let full = self.baselines.needs_full(idx, e.id.generation, tick);
            let is_own = Some(idx) == own_index;
            let own_body;
            let body: &RecordBody = if is_own {
                // The receiver's own record carries its body rates.
                let origin = origin_for(e.state.position);
                let kind = if full {
                    RecordKind::FULL
                } else {
                    RecordKind::DELTA
                };
                own_body = RecordBody::encode(&SnapshotRecord::quantize(
                    &e.state,
                    0,
                    origin,
                    kind.with_omega(),
                ));
                &own_body
            } else if full {
                &enc.encoded[slot].full
            } else {
                &enc.encoded[slot].delta
            };
            let origin = enc.encoded[slot].origin;
            if let Some(b) = budget {
                let after = self.writer.raw_len() + self.writer.cost_of(origin, body) + ext_len;
                if after > b && !is_own {
                    continue;
                }
            }
            if self.writer.push(origin, body).is_err() {
                break;
            }
            self.baselines.on_sent(idx, e.id.generation, tick, full);
            records += 1;
            fulls += u64::from(full);
        }
        let compression = if cfg.compress {
            Compression::WhenSmaller {
                level: DEFAULT_COMPRESSION_LEVEL,
            }
        } else {
            Compression::Off
        };
        let size = self
            .writer
            .finish(tick, &ext, compression, &mut self.packet)
            .ok()?;
        self.stats.snapshots += 1;
        self.stats.bytes += size.packet as u64;
        if let Some(limit) = limit {
            self.send_credit -= size.packet as f64;
            self.usage += size.packet as f64 / limit as f64 * USAGE_ALPHA;
        }
        self.stats.records += records;
        self.stats.full_records += fulls;
        self.stats.compressed += u64::from(size.compressed);
        self.stats.largest_packet = self.stats.largest_packet.max(size.packet);
        debug_assert!(self.packet.len() >= HEADER_BYTES);
        Some(&self.packet)
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fl_protocol::ack::AckStamp;
    use fl_protocol::snapshot::SnapshotDecoder;
    use fl_protocol::tlv::tag;

    fn entity(index: u32, x: f64) -> SnapshotEntity {
        SnapshotEntity {
            id: EntityId {
                index,
                generation: 1,
            },
            state: EntityState {
                idx: index,
                generation: 1,
                type_index: 0,
                position: [x, 1000.0, 0.0],
                orientation: [0.0, 0.0, 0.0, 1.0],
                velocity: [200.0, 0.0, 0.0],
                ..EntityState::default()
            },
            owner: None,
        }
    }

    fn world(n: u32) -> TickEncoding {
        let mut enc = TickEncoding::default();
        enc.build(
            1,
            (1..=n).map(|i| entity(i, f64::from(i) * 300.0)).collect(),
            6250.0,
        );
        enc
    }

    fn ctx(own: u32) -> PeerContext {
        PeerContext {
            input_timing: None,
            own: Some(EntityId {
                index: own,
                generation: 1,
            }),
            focus: [f64::from(own) * 300.0, 1000.0, 0.0],
            focus_velocity: [200.0, 0.0, 0.0],
            last_applied_seq: Some(41),
            delay_ticks: 6,
            peer_count: 3,
            own_state_words: Some(vec![1.0; 32]),
            link: LinkStats {
                max_datagram_size: 1200,
                ..LinkStats::default()
            },
        }
    }

    #[test]
    fn budget_holds_and_the_own_entity_is_present() {
        let cfg = SnapshotConfig::default();
        let gov = TickGovernor::new(Default::default());
        let enc = world(200);
        let mut peer = PeerSnapshots::new(&cfg);
        let bytes = peer
            .build(&enc, &ctx(150), &cfg, &gov)
            .expect("sent")
            .to_vec();
        assert!(bytes.len() <= 1200, "{} bytes", bytes.len());
        let (_, snap, ext) = SnapshotDecoder::new().decode(&bytes).expect("valid");
        let own = snap
            .records
            .iter()
            .find(|r| r.idx == 150)
            .expect("own entity present");
        assert!(own.omega.is_some() && own.full.is_some());
        assert!(snap.records.len() > 10 && snap.records.len() < 200);
        assert!(ext.find(tag::SNAPSHOT_OWN_STATE).is_some());
        assert_eq!(
            ext.get(tag::SNAPSHOT_LAST_ACKED_SEQ_NUM),
            Some(Ext::SnapshotLastAckedSeqNum(41))
        );
        assert_eq!(
            ext.get(tag::SNAPSHOT_PEER_DELAY_TICKS),
            Some(Ext::SnapshotPeerDelayTicks(6))
        );
    }

    #[test]
    fn fulls_converge_to_deltas_once_acked() {
        let cfg = SnapshotConfig {
            budget_bytes: 0,
            ..SnapshotConfig::default()
        };
        let gov = TickGovernor::new(Default::default());
        let mut peer = PeerSnapshots::new(&cfg);
        let mut enc = world(5);
        let count_full = |bytes: &[u8]| {
            let (_, s, _) = SnapshotDecoder::new().decode(bytes).expect("valid");
            s.records.iter().filter(|r| r.full.is_some()).count()
        };
        let first = peer
            .build(&enc, &ctx(1), &cfg, &gov)
            .expect("sent")
            .to_vec();
        assert_eq!(count_full(&first), 5);
        // A new link starts at a quarter of the rate (no budget: every fourth tick).
        for t in 2..5 {
            enc.tick = t;
            assert!(peer.build(&enc, &ctx(1), &cfg, &gov).is_none());
        }
        enc.tick = 5;
        let second = peer
            .build(&enc, &ctx(1), &cfg, &gov)
            .expect("sent")
            .to_vec();
        assert_eq!(count_full(&second), 5, "not acked yet: still full");
        peer.baselines.on_ack(AckStamp { high: 5, mask: 0 });
        for t in 6..9 {
            enc.tick = t;
            assert!(peer.build(&enc, &ctx(1), &cfg, &gov).is_none());
        }
        enc.tick = 9;
        let third = peer
            .build(&enc, &ctx(1), &cfg, &gov)
            .expect("sent")
            .to_vec();
        assert_eq!(count_full(&third), 0);
        assert!(third.len() < first.len());
    }

    #[test]
    fn despawns_ride_the_next_snapshots() {
        let cfg = SnapshotConfig::default();
        let gov = TickGovernor::new(Default::default());
        let mut peer = PeerSnapshots::new(&cfg);
        let mut enc = world(3);
        peer.build(&enc, &ctx(1), &cfg, &gov).expect("sent");
        peer.baselines.on_despawn(3);
        enc.build(2, vec![entity(1, 300.0), entity(2, 600.0)], 6250.0);
        let bytes = peer
            .build(&enc, &ctx(1), &cfg, &gov)
            .expect("sent")
            .to_vec();
        let (_, _, ext) = SnapshotDecoder::new().decode(&bytes).expect("valid");
        assert_eq!(
            ext.get(tag::SNAPSHOT_DESPAWN),
            Some(Ext::SnapshotDespawn(vec![3]))
        );
    }

    #[test]
    fn a_throttled_budget_still_carries_other_aircraft() {
        let cfg = SnapshotConfig::default();
        let gov = TickGovernor::new(Default::default());
        let mut peer = PeerSnapshots::new(&cfg);
        let mut enc = world(40);
        let mut c = ctx(20);
        c.link.loss = 0.5;
        let mut last = Vec::new();
        for t in 1..=1200 {
            enc.tick = t;
            if let Some(b) = peer.build(&enc, &c, &cfg, &gov) {
                last = b.to_vec();
            }
        }
        assert!(peer.congestion.throttle() < 0.2, "fully throttled");
        let (_, snap, _) = SnapshotDecoder::new().decode(&last).expect("valid");
        let others = snap.records.iter().filter(|r| r.idx != 20).count();
        assert!(
            others >= 10,
            "only {others} other aircraft fit a throttled snapshot"
        );
        assert!(last.len() <= 1200);
    }

    #[test]
    fn a_congested_peer_gets_fewer_bytes() {
        let cfg = SnapshotConfig::default();
        let gov = TickGovernor::new(Default::default());
        let mut peer = PeerSnapshots::new(&cfg);
        let mut enc = world(3);
        let mut c = ctx(1);
        c.link.loss = 0.2;
        let mut sent = 0;
        for t in 1..=600 {
            enc.tick = t;
            sent += usize::from(peer.build(&enc, &c, &cfg, &gov).is_some());
        }
        // Throttled to the floor, a byte rate: min_send_hz / 60 of the budget per tick.
        let allowed = 600 * 1200 / 6 + 3 * 1200;
        assert!(
            peer.stats.bytes <= allowed as u64,
            "{} bytes in 10 s on a lossy link (allowed {allowed})",
            peer.stats.bytes
        );
        assert!(sent >= 60, "never below min_send_hz: {sent}");
    }
}
