//! Interest management's spatial hash: the spec's automatic cell size rule
//! `clamp(draw_distance / 32, 500 m, 10 km)`. The hash itself is [`fl_ai::SpatialIndex`], the
//! workspace's one spatial grid, shared with the AI's neighbour queries (`fl_ai::GridWorld`):
//! rebuilt once per tick, read concurrently afterwards, query results sorted by index.

pub use fl_ai::SpatialIndex;

/// Auto cell size for a given interest radius.
pub fn auto_cell_size(draw_distance_m: f64) -> f64 {
    (draw_distance_m / 32.0).clamp(500.0, 10_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_cell_size_follows_the_rule() {
        assert_eq!(auto_cell_size(200_000.0), 6250.0);
        assert_eq!(auto_cell_size(1000.0), 500.0);
        assert_eq!(auto_cell_size(1e9), 10_000.0);
    }
}
