//! Snapshot intake: the tick guard (stale or duplicate ticks dropped before decoding), bounded
//! decompression, despawns applied before upserts, deltas for unknown entities ignored, the own
//! entity's generation checked against the wire's 16 bits, retention eviction, and every
//! snapshot TLV (latency, delay ticks, last acked input, throttle, effects, exact own state).

use super::*;

impl ClientSession {
    pub(super) fn on_snapshot(&mut self, payload: &[u8], now: Duration) {
        self.stats.snapshots_received += 1;
        let header = match SnapshotDecoder::header(payload) {
            Ok(h) => h,
            Err(_) => {
                self.stats.decode_errors += 1;
                return;
            }
        };
        if u16::from(header.protocol_version) != PROTOCOL_VERSION {
            self.stats.snapshots_wrong_version += 1;
            return;
        }
        if self.state != SessionState::InWorld {
            self.stats.snapshots_before_admission += 1;
            return;
        }
        let tick = header.tick_index;
        if self.last_tick.is_some_and(|last| tick <= last) {
            // Stale or duplicate: never applied, never acked, so the ack stays a high-water mark.
            self.stats.snapshots_stale += 1;
            return;
        }
        let (_, snap, ext) = match self.decoder.decode(payload) {
            Ok(d) => d,
            Err(e) => {
                self.stats.decode_errors += 1;
                tracing::debug!(tick, "snapshot rejected: {e}");
                return;
            }
        };
        self.acks.record(tick);
        self.last_tick = Some(tick);
        self.last_snapshot_at = Some(now);
        self.stats.snapshots_applied += 1;
        self.stats.snapshot_bytes += payload.len() as u64;

        let mut acked_seq = None;
        let mut own_state = None;
        let mut removed = Vec::new();
        let mut effects = Vec::new();
        let mut articulation = None;
        let mut crew = None;
        self.delay_ticks = None;
        for entry in ext.iter() {
            let Some(value) = ext.get(entry.tag) else {
                continue; // unknown tag or malformed payload: skipped
            };
            match value {
                Ext::SnapshotPeerCount(n) => self.peer_count = Some(n),
                Ext::SnapshotPeerLatency(ms) => self.latency_ms = Some(ms),
                Ext::SnapshotPeerDelayTicks(d) => self.delay_ticks = Some(d),
                Ext::SnapshotDespawn(list) => {
                    // Despawns come before this packet's records (a kill then a reuse of the
                    // same slot resolves to the new entity).
                    for idx in list {
                        if self.entities.despawn(idx) {
                            removed.push(idx);
                        }
                    }
                }
                Ext::SnapshotEffects(list) => {
                    effects.extend(list.into_iter().filter(|e| e.effect_type().is_some()));
                }
                Ext::SnapshotLastAckedSeqNum(seq) => acked_seq = Some(seq),
                Ext::SnapshotInputTiming {
                    target_lead,
                    depth_ticks,
                    queued,
                } => {
                    self.input_timing = Some(InputTiming {
                        target_lead_ticks: fl_protocol::tlv::milliticks_to_ticks(target_lead),
                        depth_ticks,
                        queued,
                        tick,
                    });
                }
                Ext::SnapshotCrew(poses) => crew = Some(poses),
                Ext::SnapshotArticulation(list) => articulation = Some(list),
                Ext::SnapshotServerThrottle {
                    load_pct,
                    interval_ticks,
                } => {
                    self.throttle = Some((load_pct, interval_ticks, tick + THROTTLE_LATCH_TICKS));
                }
                Ext::SnapshotOwnState {
                    entity_idx,
                    entity_gen,
                    format,
                    words,
                } => own_state = Some((entity_idx, entity_gen, format, words)),
                _ => {}
            }
        }
        let mut changes = Vec::with_capacity(snap.records.len());
        for rec in &snap.records {
            let Some(&origin) = snap.origins.get(rec.origin_index as usize) else {
                continue;
            };
            if let Some(kind) = self.entities.apply_record(rec, origin, tick) {
                changes.push((rec.idx, kind));
            }
        }
        if let Some(list) = articulation {
            self.entities.apply_articulation(&list);
        }
        if let Some(poses) = crew {
            self.entities.apply_crew(&poses);
        }
        let own_entity = self.own_entity();
        removed.extend(
            self.entities
                .evict_stale(tick, RETENTION_TICKS, own_entity.map(|o| o.idx)),
        );
        let own = own_entity.and_then(|o| {
            let rec = self.entities.get(o.idx)?;
            if !o.matches_wire(rec.idx, rec.generation) || rec.last_tick != tick {
                return None;
            }
            let mut refused = false;
            let mut combat = None;
            let exact = own_state.and_then(|(idx, generation, format, words)| {
                let ok = idx == o.idx && generation == o.generation;
                let state = match format {
                    _ if !ok => None,
                    OWN_STATE_FORMAT_FLIGHT => AircraftState::from_words(&words),
                    // Format 2: the flight words, then the own combat state. Combat words this
                    // build refuses leave the flight state usable (prediction then ignores its
                    // stores and damage).
                    OWN_STATE_FORMAT if words.len() >= AircraftState::WORDS => {
                        let (flight, rest) = words.split_at(AircraftState::WORDS);
                        combat = fl_combat::own::OwnCombat::from_words(rest);
                        AircraftState::from_words(flight)
                    }
                    _ => None,
                };
                refused = state.is_none();
                state
            });
            Some(OwnSnapshot {
                entity: o,
                type_index: rec.type_index,
                exact,
                own_state_refused: refused,
                combat,
                record: rec.clone(),
                acked_seq,
                delay_ticks: self.delay_ticks,
            })
        });
        self.weather
            .prune_before(tick.saturating_sub(WEATHER_KEEP_TICKS));
        self.events
            .push(SessionEvent::Snapshot(Box::new(SnapshotUpdate {
                tick,
                received_at: now,
                bytes: payload.len(),
                own,
                changes,
                removed,
                effects,
            })));
    }
}
