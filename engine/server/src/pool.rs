//! The generational entity pool: stable indices with generations so a recycled slot is never
//! mistaken for its previous occupant, and a dense, ordered live list so per-tick passes cost
//! O(live) and visit entities in ascending index order (the determinism contract).
//!
//! Owns slot allocation only; what an entity *is* lives in the world.

/// A handle to a pool slot: index plus the generation it was allocated with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityId {
    pub index: u32,
    pub generation: u32,
}

/// Index 0 is never allocated: the wire uses it for "no entity".
const FIRST_INDEX: u32 = 1;

#[derive(Debug)]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Why an insert was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the entity pool is full ({0} entities)")]
pub struct PoolFull(pub usize);

/// A generational pool of `T`.
#[derive(Debug)]
pub struct Pool<T> {
    slots: Vec<Slot<T>>,
    /// Free indices, reused lowest-first so reuse is deterministic.
    free: std::collections::BTreeSet<u32>,
    /// Live indices in ascending order.
    live: Vec<u32>,
    capacity: usize,
}

impl<T> Pool<T> {
    /// A pool that holds at most `capacity` live entities.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            slots: Vec::new(),
            free: std::collections::BTreeSet::new(),
            live: Vec::new(),
            capacity,
        }
    }

    /// Live entities.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether no entity is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// The maximum number of live entities.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn slot_of(index: u32) -> usize {
        (index - FIRST_INDEX) as usize
    }

    /// Inserts a value, reusing the lowest free index (with a bumped generation).
    pub fn insert(&mut self, value: T) -> Result<EntityId, PoolFull> {
        if self.live.len() >= self.capacity {
            return Err(PoolFull(self.capacity));
        }
        let index = match self.free.pop_first() {
            Some(i) => i,
            None => {
                let i = FIRST_INDEX + self.slots.len() as u32;
                self.slots.push(Slot {
                    generation: 0,
                    value: None,
                });
                i
            }
        };
        let slot = &mut self.slots[Self::slot_of(index)];
        // Generations start at 1 (0 means "no entity" on the wire) and wrap past u32::MAX to 1.
        slot.generation = slot.generation.wrapping_add(1).max(1);
        slot.value = Some(value);
        let pos = self.live.partition_point(|&l| l < index);
        self.live.insert(pos, index);
        Ok(EntityId {
            index,
            generation: slot.generation,
        })
    }

    /// Removes the entity if the handle is current.
    pub fn remove(&mut self, id: EntityId) -> Option<T> {
        let slot = self
            .slots
            .get_mut(Self::slot_of(id.index.max(FIRST_INDEX)))?;
        if id.index < FIRST_INDEX || slot.generation != id.generation {
            return None;
        }
        let value = slot.value.take()?;
        if let Ok(pos) = self.live.binary_search(&id.index) {
            self.live.remove(pos);
        }
        self.free.insert(id.index);
        Some(value)
    }

    /// The entity behind a current handle.
    pub fn get(&self, id: EntityId) -> Option<&T> {
        if id.index < FIRST_INDEX {
            return None;
        }
        let slot = self.slots.get(Self::slot_of(id.index))?;
        (slot.generation == id.generation)
            .then_some(slot.value.as_ref())
            .flatten()
    }

    /// Mutable access behind a current handle.
    pub fn get_mut(&mut self, id: EntityId) -> Option<&mut T> {
        if id.index < FIRST_INDEX {
            return None;
        }
        let slot = self.slots.get_mut(Self::slot_of(id.index))?;
        if slot.generation != id.generation {
            return None;
        }
        slot.value.as_mut()
    }

    /// The live entity at an index, whatever its generation.
    pub fn by_index(&self, index: u32) -> Option<(EntityId, &T)> {
        if index < FIRST_INDEX {
            return None;
        }
        let slot = self.slots.get(Self::slot_of(index))?;
        slot.value.as_ref().map(|v| {
            (
                EntityId {
                    index,
                    generation: slot.generation,
                },
                v,
            )
        })
    }

    /// Live handles in ascending index order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = EntityId> + '_ {
        self.live.iter().map(|&index| EntityId {
            index,
            generation: self.slots[Self::slot_of(index)].generation,
        })
    }

    /// Live entities in ascending index order.
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, &T)> + '_ {
        self.live.iter().filter_map(|&index| self.by_index(index))
    }

    /// Mutable access to every live entity, in ascending index order, as a vector of
    /// references (each points at a distinct slot, so they can be handed to parallel workers).
    pub fn values_mut(&mut self) -> Vec<(EntityId, &mut T)> {
        let live = &self.live;
        let mut next = live.iter().peekable();
        let mut out = Vec::with_capacity(live.len());
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let index = FIRST_INDEX + i as u32;
            if next.peek() == Some(&&index) {
                next.next();
                let generation = slot.generation;
                if let Some(v) = slot.value.as_mut() {
                    out.push((EntityId { index, generation }, v));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_protect_recycled_slots() {
        let mut pool = Pool::with_capacity(4);
        let a = pool.insert("a").expect("room");
        let b = pool.insert("b").expect("room");
        assert_eq!((a.index, a.generation), (1, 1));
        assert_eq!(pool.remove(a), Some("a"));
        assert_eq!(pool.get(a), None);
        let c = pool.insert("c").expect("room");
        assert_eq!(c.index, 1, "lowest free index is reused");
        assert_eq!(c.generation, 2);
        assert_eq!(
            pool.get(a),
            None,
            "the stale handle does not see the new occupant"
        );
        assert_eq!(pool.remove(a), None);
        assert_eq!(pool.get(c), Some(&"c"));
        assert_eq!(pool.ids().map(|i| i.index).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(pool.get(b), Some(&"b"));
    }

    #[test]
    fn capacity_is_enforced() {
        let mut pool = Pool::with_capacity(1);
        pool.insert(1).expect("room");
        assert_eq!(pool.insert(2), Err(PoolFull(1)));
    }

    #[test]
    fn values_mut_visits_live_entities_in_order() {
        let mut pool = Pool::with_capacity(8);
        let ids: Vec<_> = (0..5).map(|i| pool.insert(i).expect("room")).collect();
        pool.remove(ids[1]);
        pool.remove(ids[3]);
        for (_, v) in pool.values_mut() {
            *v *= 10;
        }
        let seen: Vec<_> = pool.iter().map(|(id, v)| (id.index, *v)).collect();
        assert_eq!(seen, vec![(1, 0), (3, 20), (5, 40)]);
        assert_eq!(pool.by_index(0), None);
    }
}
