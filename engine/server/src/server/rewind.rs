//! Lag compensation at the server's level: how far a shooter's hitscan rewinds (the view its
//! pilot's screen showed with the input applied last, `PeerSlot::view`) and the hitscan query
//! with the type registry's collision radii. The history and the geometry are `crate::lagcomp`.
//!
//! Owns no state. Must not rewind anything but player hitscan: AI shooters (and any entity no
//! peer flies) rewind 0, and projectiles never ask.

use super::Server;
use crate::lagcomp::{Hit, Ray, ShooterView, rewind_ticks};
use crate::pool::EntityId;
use crate::world::Pilot;

impl Server {
    /// What the screen of the peer flying `shooter` showed with its input applied last; `None`
    /// when no peer flies it.
    pub fn shooter_view(&self, shooter: EntityId) -> Option<ShooterView> {
        let Pilot::Peer(peer) = self.world.get(shooter)?.pilot else {
            return None;
        };
        self.peers.get(&peer).map(|p| p.view)
    }

    /// The ticks `shooter`'s hitscan rewinds now: for a peer's aircraft, from the current
    /// positions back to the tick its pilot's screen showed (`now − tickIndex +
    /// InputViewDelay`), clamped to `0..=lagcomp::MAX_REWIND_TICKS`; 0 for AI shooters, for
    /// an entity nobody flies and before the peer's first input was applied.
    pub fn rewind_ticks(&self, shooter: EntityId) -> f64 {
        let Some(view) = self.shooter_view(shooter).and_then(|v| v.view_tick) else {
            return 0.0;
        };
        let now = self
            .world
            .history()
            .newest_tick()
            .unwrap_or(self.world.tick());
        rewind_ticks(now, view)
    }

    /// The nearest entity a hitscan `ray` fired by `shooter` hits, with targets rewound to what
    /// the shooter saw ([`Server::rewind_ticks`]) and the collision radii of their types.
    /// Call between ticks (after [`Server::tick`]): the current positions are then the history's
    /// newest record.
    pub fn ray_hits(&self, ray: &Ray, shooter: EntityId) -> Option<Hit> {
        self.ray_hits_rewound(ray, shooter, self.rewind_ticks(shooter))
    }

    /// [`Server::ray_hits`] with an explicit rewind (0: no lag compensation).
    pub fn ray_hits_rewound(&self, ray: &Ray, shooter: EntityId, rewind: f64) -> Option<Hit> {
        let types = &self.types;
        self.world.ray_hits(
            ray,
            rewind,
            shooter,
            types.max_collision_radius_m(),
            |_, e| types.collision_radius_m(e.type_index),
        )
    }
}
