//! Maps from integer ids to row numbers.

use rustc_hash::FxHashMap;

/// A map from ids to row numbers: a plain vector when the ids are small positive
/// numbers (as the readers make them), a hash map otherwise.
pub(crate) enum IdMap {
    Dense(Vec<u32>),
    Hashed(FxHashMap<i32, u32>),
}

impl IdMap {
    const NONE: u32 = u32::MAX;

    pub(crate) fn for_ids(ids: &[i32]) -> IdMap {
        let max = ids.iter().copied().max().unwrap_or(0);
        let min = ids.iter().copied().min().unwrap_or(1);
        // Dense only when the vector is not much larger than the data.
        match usize::try_from(max) {
            Ok(max) if min >= 1 && max <= 4 * ids.len() + 1024 => {
                IdMap::Dense(vec![Self::NONE; max + 1])
            }
            _ => {
                let mut map = FxHashMap::default();
                map.reserve(ids.len());
                IdMap::Hashed(map)
            }
        }
    }

    /// Inserts, returning the previous row of `id` if it had one.
    pub(crate) fn insert(&mut self, id: i32, row: u32) -> Option<u32> {
        match self {
            IdMap::Dense(v) => {
                // for_ids() sized the vector for every id it was given
                let slot = usize::try_from(id).ok().and_then(|i| v.get_mut(i))?;
                let old = std::mem::replace(slot, row);
                (old != Self::NONE).then_some(old)
            }
            IdMap::Hashed(m) => m.insert(id, row),
        }
    }

    pub(crate) fn get(&self, id: i32) -> Option<u32> {
        match self {
            IdMap::Dense(v) => usize::try_from(id)
                .ok()
                .and_then(|i| v.get(i))
                .copied()
                .filter(|&r| r != Self::NONE),
            IdMap::Hashed(m) => m.get(&id).copied(),
        }
    }

    /// The first row of each id of `ids`.
    pub(crate) fn first_rows(ids: &[i32]) -> IdMap {
        let mut map = IdMap::for_ids(ids);
        for (row, &id) in ids.iter().enumerate().rev() {
            map.insert(id, u32::try_from(row).unwrap_or(Self::NONE));
        }
        map
    }
}
