//! The per-peer priority/budget scheduler: from the entities in a peer's interest set, choose
//! the most relevant ones whose records fit the byte budget. Relevance is closeness, closing
//! speed, player ownership and — so nothing starves — how long the entity has waited. The peer's
//! own entity is always chosen first. A pure function of its inputs (ties broken by index).

/// Scheduler weights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Priority of an entity at distance 0 (falls off as `1 / (1 + d / falloff_m)`).
    pub distance: f64,
    pub falloff_m: f64,
    /// Per m/s of closing speed (capped at ±500 m/s).
    pub closing: f64,
    /// Per tick waited since last sent (the no-starvation term).
    pub recency: f64,
    /// Bonus for player-owned entities.
    pub player: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            distance: 100.0,
            falloff_m: 2_000.0,
            closing: 0.05,
            recency: 2.0,
            player: 25.0,
        }
    }
}

/// One entity the peer could be sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub index: u32,
    /// Where the caller keeps the entity (opaque to the scheduler).
    pub slot: usize,
    pub distance_m: f64,
    /// Positive when approaching the peer.
    pub closing_mps: f64,
    /// Ticks since last sent to this peer (never sent: a large value).
    pub waited_ticks: u64,
    pub player_owned: bool,
    /// Bytes its record would add to the packet.
    pub cost: usize,
}

/// Chooses which candidates fit `budget` bytes, the own entity (`own`) first and
/// unconditionally, then by descending priority. Returns indices into `candidates`, in the
/// order they should be written. `budget == None` means unlimited.
pub fn schedule(
    candidates: &[Candidate],
    own: Option<u32>,
    budget: Option<usize>,
    w: &Weights,
) -> Vec<usize> {
    let priority = |c: &Candidate| {
        let d = if c.distance_m.is_finite() {
            c.distance_m.max(0.0)
        } else {
            f64::MAX
        };
        let closing = if c.closing_mps.is_finite() {
            c.closing_mps.clamp(-500.0, 500.0)
        } else {
            0.0
        };
        w.distance / (1.0 + d / w.falloff_m)
            + w.closing * closing
            + w.recency * c.waited_ticks.min(100_000) as f64
            + if c.player_owned { w.player } else { 0.0 }
    };
    let mut order: Vec<(usize, f64)> = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| Some(c.index) != own)
        .map(|(i, c)| (i, priority(c)))
        .collect();
    // Indices are unique, so the order is total and an unstable sort is deterministic.
    order.sort_unstable_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(candidates[a.0].index.cmp(&candidates[b.0].index))
    });
    let mut chosen = Vec::with_capacity(candidates.len());
    let mut used = 0usize;
    if let Some(own_pos) = own.and_then(|o| candidates.iter().position(|c| c.index == o)) {
        used += candidates[own_pos].cost;
        chosen.push(own_pos);
    }
    for (i, _) in order {
        let cost = candidates[i].cost;
        if budget.is_none_or(|b| used + cost <= b) {
            used += cost;
            chosen.push(i);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(index: u32, distance_m: f64, waited_ticks: u64) -> Candidate {
        Candidate {
            index,
            slot: index as usize,
            distance_m,
            closing_mps: 0.0,
            waited_ticks,
            player_owned: false,
            cost: 25,
        }
    }

    #[test]
    fn own_entity_always_first_even_over_budget() {
        let c = vec![cand(1, 10.0, 0), cand(2, 100_000.0, 0)];
        assert_eq!(
            schedule(&c, Some(2), Some(10), &Weights::default()),
            vec![1]
        );
    }

    #[test]
    fn nearer_first_within_budget() {
        let c = vec![cand(1, 50_000.0, 0), cand(2, 100.0, 0), cand(3, 5_000.0, 0)];
        let chosen = schedule(&c, None, Some(50), &Weights::default());
        assert_eq!(
            chosen,
            vec![1, 2],
            "indices into the slice: entity 2 then entity 3"
        );
        assert_eq!(schedule(&c, None, None, &Weights::default()).len(), 3);
    }

    #[test]
    fn waiting_entities_are_not_starved() {
        // A far entity waits while near ones fill the budget; its recency term eventually wins.
        let w = Weights::default();
        let sent_far = (0..200u64).any(|waited| {
            let c = vec![
                cand(1, 100.0, 0),
                cand(2, 200.0, 0),
                cand(9, 150_000.0, waited),
            ];
            schedule(&c, None, Some(50), &w).contains(&2)
        });
        assert!(sent_far, "the far entity was starved");
    }

    #[test]
    fn ties_break_by_index() {
        let c = vec![cand(5, 100.0, 0), cand(3, 100.0, 0)];
        assert_eq!(schedule(&c, None, Some(25), &Weights::default()), vec![1]);
    }
}
