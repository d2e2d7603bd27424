//! Finding an element by its id, for pprof ids (u64) and v2 ids (positive i32).

use crate::error::{ProfileError, Result};
use rustc_hash::FxHashMap;

/// Position of each id in its table; built after checking that the ids are
/// non-zero and unique.
pub(crate) enum IdIndex {
    /// Slot `id` holds position + 1 (0 = no such id); used when ids are dense.
    Dense(Vec<u32>),
    Sparse(FxHashMap<u64, u32>),
}

impl IdIndex {
    /// `what` names the element ("location") in errors.
    pub(crate) fn build(ids: impl ExactSizeIterator<Item = u64> + Clone, what: &str) -> Result<Self> {
        let n = ids.len();
        if n >= u32::MAX as usize {
            return Err(ProfileError::limit(format!("too many {what}s ({n})")));
        }
        let zero = |pos: usize| {
            ProfileError::format(
                None,
                format!("{what} {} (in file order) has id 0; ids must be non-zero", pos + 1),
            )
        };
        let duplicate =
            |id: u64| ProfileError::format(None, format!("{what} id {id} occurs more than once"));
        let max = ids.clone().max().unwrap_or(0);
        if max <= (n as u64).saturating_mul(4).saturating_add(1024) {
            let mut slots = vec![0u32; max as usize + 1];
            for (pos, id) in ids.enumerate() {
                if id == 0 {
                    return Err(zero(pos));
                }
                let slot = &mut slots[id as usize];
                if *slot != 0 {
                    return Err(duplicate(id));
                }
                *slot = pos as u32 + 1;
            }
            Ok(IdIndex::Dense(slots))
        } else {
            let mut map = FxHashMap::default();
            map.reserve(n);
            for (pos, id) in ids.enumerate() {
                if id == 0 {
                    return Err(zero(pos));
                }
                if map.insert(id, pos as u32).is_some() {
                    return Err(duplicate(id));
                }
            }
            Ok(IdIndex::Sparse(map))
        }
    }

    /// For v2 id columns that validation has already checked (positive, unique).
    pub(crate) fn of_v2_ids(ids: &[i32], what: &str) -> Result<Self> {
        Self::build(ids.iter().map(|&x| u64::try_from(x).unwrap_or(0)), what)
            .map_err(|e| ProfileError::invalid(what, "(id)", None, e.to_string()))
    }

    pub(crate) fn position(&self, id: u64) -> Option<usize> {
        match self {
            IdIndex::Dense(slots) => usize::try_from(id)
                .ok()
                .and_then(|i| slots.get(i))
                .filter(|&&p| p != 0)
                .map(|&p| p as usize - 1),
            IdIndex::Sparse(map) => map.get(&id).map(|&p| p as usize),
        }
    }

    /// Position of a v2 id (NA and non-positive ids have none).
    pub(crate) fn position_i32(&self, id: i32) -> Option<usize> {
        u64::try_from(id).ok().and_then(|id| self.position(id))
    }
}
