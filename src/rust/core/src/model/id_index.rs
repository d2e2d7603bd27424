//! Finding rows by id: the one index the core uses to look up integer ids.
//!
//! Ids are nearly always small positive numbers handed out in order (readers
//! number rows 1..n), and a vector indexed by the id finds a row with one load,
//! where a hash map costs a hash and a probe per lookup (millions of them when a
//! stack table is walked). But ids that come from a file or from R can be
//! anything (huge, zero, negative, NA), and a vector as long as the largest id
//! could be far larger than the input. So [`IdIndex`] (and [`IdSet`], stored
//! the same way) keeps a vector slot for each positive id when the largest one
//! is within a bound proportional to the number of ids (the decision is
//! [`Layout::of`]'s), and a hash map for every other id; lookups give the same
//! answers either way.
//!
//! Every allocation is sized from the ids the index is built for and is
//! fallible: running out of memory is a [`ProfileError::limit`], not an abort.

use crate::error::{ProfileError, Result};
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// Ids up to `SLOTS_PER_ID` times the number of ids (plus `SPARE_SLOTS`) get
/// vector slots: the vector then costs at most a few slots per id, and ids
/// 1..n, even thinned out by filtering, always fit.
const SLOTS_PER_ID: usize = 4;
const SPARE_SLOTS: usize = 1024;

/// An id that an index can hold: v2 ids (`i32`, NA = `i32::MIN`) and pprof ids
/// (`u64`).
pub(crate) trait Id: Copy + Ord + Hash + TryInto<usize> {
    const ZERO: Self;
    const MAX: Self;

    /// The id as a slot number if it is positive (else 0).
    fn slot_or_zero(self) -> u64;

    /// The id's position in the vector of slots: the id itself if it is positive.
    #[inline]
    fn slot(self) -> Option<usize> {
        self.try_into().ok().filter(|&s| s > 0)
    }

    /// The largest slot of the ids of `ids` (0 if none has one), and whether
    /// every id has a slot: one pass over plain numbers, which the compiler
    /// turns into SIMD instructions (the layout is decided for every index, some
    /// of them over millions of ids).
    fn slot_range(ids: &[Self]) -> (u64, bool) {
        let (min, max) = ids.iter().fold((Self::MAX, Self::ZERO), |(min, max), &id| {
            (min.min(id), max.max(id))
        });
        (max.slot_or_zero(), min > Self::ZERO)
    }
}

impl Id for i32 {
    const ZERO: i32 = 0;
    const MAX: i32 = i32::MAX;
    fn slot_or_zero(self) -> u64 {
        self.max(0) as u64
    }
}

impl Id for u64 {
    const ZERO: u64 = 0;
    const MAX: u64 = u64::MAX;
    fn slot_or_zero(self) -> u64 {
        self
    }
}

/// How an index for a set of ids is laid out: how many vector slots, and room
/// for how many ids in the hash map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    slots: usize,
    hashed: usize,
}

impl Layout {
    /// Slots for ids 0..=max when the largest positive id is within the bound
    /// (ids without a slot, such as NA, go to the hash map); else every id is
    /// hashed.
    fn of<K: Id>(ids: &[K]) -> Layout {
        let (max, all_have_slots) = K::slot_range(ids);
        let bound = ids
            .len()
            .saturating_mul(SLOTS_PER_ID)
            .saturating_add(SPARE_SLOTS);
        match usize::try_from(max) {
            Ok(max) if max <= bound => {
                let without_slot = if all_have_slots {
                    0
                } else {
                    ids.iter().filter(|&&id| id.slot().is_none()).count()
                };
                Layout {
                    slots: if max > 0 { max + 1 } else { 0 },
                    hashed: without_slot,
                }
            }
            _ => Layout {
                slots: 0,
                hashed: ids.len(),
            },
        }
    }
}

/// What a slot holds: the row of an id ([`IdIndex`]) or whether the id is there
/// ([`IdSet`], a byte per slot: validation builds several sets of a million
/// samples, and fresh memory is what they cost).
trait Slot: Copy + PartialEq {
    /// The slot of an id that is not there.
    const EMPTY: Self;
}

impl Slot for u32 {
    const EMPTY: u32 = u32::MAX;
}

impl Slot for bool {
    const EMPTY: bool = false;
}

fn out_of_memory(n: usize) -> ProfileError {
    ProfileError::limit(format!("not enough memory to index {n} ids"))
}

/// The storage of [`IdIndex`] and [`IdSet`]: a slot for each positive id up to
/// the bound [`Layout::of`] chose, a hash map for every other id.
#[derive(Debug, Clone)]
struct DenseOrHashed<K: Id, V: Slot> {
    slots: Vec<V>,
    hashed: FxHashMap<K, V>,
}

impl<K: Id, V: Slot> DenseOrHashed<K, V> {
    /// An empty table with room for the ids of `ids` (other ids may be inserted
    /// too, but the hash map then grows without a bound checked here).
    fn try_for_ids(ids: &[K]) -> Result<Self> {
        let layout = Layout::of(ids);
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(layout.slots)
            .map_err(|_| out_of_memory(ids.len()))?;
        slots.resize(layout.slots, V::EMPTY);
        let mut hashed = FxHashMap::default();
        hashed
            .try_reserve(layout.hashed)
            .map_err(|_| out_of_memory(ids.len()))?;
        Ok(DenseOrHashed { slots, hashed })
    }

    /// Sets the value of `id` (not [`Slot::EMPTY`]), returning the one it had.
    #[inline]
    fn insert(&mut self, id: K, value: V) -> Option<V> {
        match id.slot().and_then(|s| self.slots.get_mut(s)) {
            Some(slot) => {
                let old = std::mem::replace(slot, value);
                (old != V::EMPTY).then_some(old)
            }
            None => self.insert_hashed(id, value),
        }
    }

    #[inline]
    fn get(&self, id: K) -> Option<V> {
        match id.slot().and_then(|s| self.slots.get(s)) {
            Some(&value) => (value != V::EMPTY).then_some(value),
            None if self.hashed.is_empty() => None,
            None => self.get_hashed(id),
        }
    }

    // The hash map apart, so that the slot path is small enough to be inlined
    // into the loops over millions of rows.
    #[inline(never)]
    fn insert_hashed(&mut self, id: K, value: V) -> Option<V> {
        self.hashed.insert(id, value)
    }

    #[inline(never)]
    fn get_hashed(&self, id: K) -> Option<V> {
        self.hashed.get(&id).copied()
    }
}

/// A map from ids to rows (or other numbers below `u32::MAX`).
#[derive(Debug, Clone)]
pub(crate) struct IdIndex<K: Id = i32>(DenseOrHashed<K, u32>);

impl<K: Id> IdIndex<K> {
    /// An empty index with room for the ids of `ids`, each with a row below
    /// `ids.len()` (see [`DenseOrHashed::try_for_ids`]).
    pub(crate) fn try_for_ids(ids: &[K]) -> Result<Self> {
        if ids.len() >= u32::EMPTY as usize {
            return Err(ProfileError::limit(format!(
                "{} ids to index, more than the {} rows an index can number",
                ids.len(),
                u32::EMPTY - 1
            )));
        }
        DenseOrHashed::try_for_ids(ids).map(IdIndex)
    }

    /// The first row of each id of `ids` (later rows with the same id are not
    /// kept).
    pub(crate) fn try_first_rows(ids: &[K]) -> Result<Self> {
        let mut index = Self::try_for_ids(ids)?;
        // Backwards, so that the first row is the one that stays.
        for (row, &id) in ids.iter().enumerate().rev() {
            index.insert(id, row as u32);
        }
        Ok(index)
    }

    /// The row of each id of a key column, whose ids must be unique. Row by row,
    /// `check` sees each id first (an error from it is returned as it is), then
    /// an id seen before is reported as `repeated(row, id)`.
    pub(crate) fn try_unique_rows(
        ids: &[K],
        mut check: impl FnMut(usize, K) -> Result<()>,
        repeated: impl FnOnce(usize, K) -> ProfileError,
    ) -> Result<Self> {
        let mut index = Self::try_for_ids(ids)?;
        for (row, &id) in ids.iter().enumerate() {
            check(row, id)?;
            if index.insert(id, row as u32).is_some() {
                return Err(repeated(row, id));
            }
        }
        Ok(index)
    }

    /// Sets the row of `id` (below `u32::MAX`), returning the row it had.
    #[inline]
    pub(crate) fn insert(&mut self, id: K, row: u32) -> Option<u32> {
        self.0.insert(id, row)
    }

    /// The row of `id`.
    #[inline]
    pub(crate) fn get(&self, id: K) -> Option<u32> {
        self.0.get(id)
    }

    /// The row of `id` as an index.
    #[inline]
    pub(crate) fn row(&self, id: K) -> Option<usize> {
        self.get(id).map(|row| row as usize)
    }

    #[cfg(test)]
    fn has_slots(&self) -> bool {
        !self.0.slots.is_empty()
    }
}

/// The rows of a column grouped by id: the distinct ids in order of first
/// appearance, each with its rows in row order (the samples of each source,
/// for the writers that write source by source).
#[derive(Debug, Clone)]
pub(crate) struct IdGroups<K: Id = i32> {
    /// The group of each id.
    group: IdIndex<K>,
    /// The distinct ids and the rows of each, in order of first appearance.
    groups: Vec<(K, Vec<usize>)>,
}

impl<K: Id> IdGroups<K> {
    /// The groups of the rows of `ids`.
    pub(crate) fn try_of(ids: &[K]) -> Result<Self> {
        let mut group = IdIndex::try_for_ids(ids)?;
        let mut groups: Vec<(K, Vec<usize>)> = Vec::new();
        for (row, &id) in ids.iter().enumerate() {
            let rows = match group.row(id).and_then(|g| groups.get_mut(g)) {
                Some((_, rows)) => rows,
                None => {
                    // Fewer groups than rows, which the index numbers (below u32::MAX).
                    group.insert(id, groups.len() as u32);
                    groups.push((id, Vec::new()));
                    match groups.last_mut() {
                        Some((_, rows)) => rows,
                        None => continue,
                    }
                }
            };
            rows.push(row);
        }
        Ok(IdGroups { group, groups })
    }

    /// The rows of `id` (none if it is not in the column).
    pub(crate) fn rows_of(&self, id: K) -> &[usize] {
        self.group
            .row(id)
            .and_then(|g| self.groups.get(g))
            .map_or(&[], |(_, rows)| rows.as_slice())
    }

    /// The rows of each id, in the order given by `key` (a stable sort).
    pub(crate) fn sort_rows_by_key<T: Ord>(&mut self, key: impl Fn(usize) -> T) {
        for (_, rows) in &mut self.groups {
            rows.sort_by_key(|&row| key(row));
        }
    }

    /// The distinct ids with their rows, in order of first appearance.
    pub(crate) fn into_groups(self) -> Vec<(K, Vec<usize>)> {
        self.groups
    }
}

/// A set of ids, stored as an [`IdIndex`] is.
#[derive(Debug, Clone)]
pub(crate) struct IdSet<K: Id = i32>(DenseOrHashed<K, bool>);

impl<K: Id> IdSet<K> {
    /// An empty set with room for the ids of `ids` (see [`DenseOrHashed::try_for_ids`]).
    pub(crate) fn try_for_ids(ids: &[K]) -> Result<Self> {
        DenseOrHashed::try_for_ids(ids).map(IdSet)
    }

    /// The set of the ids of `ids`.
    pub(crate) fn try_of(ids: &[K]) -> Result<Self> {
        let mut set = Self::try_for_ids(ids)?;
        for &id in ids {
            set.insert(id);
        }
        Ok(set)
    }

    /// Adds `id`; false if it was in the set already.
    #[inline]
    pub(crate) fn insert(&mut self, id: K) -> bool {
        self.0.insert(id, true).is_none()
    }

    #[inline]
    pub(crate) fn contains(&self, id: K) -> bool {
        self.0.get(id).is_some()
    }

    /// The first position of `ids` whose id occurred before it, with that id.
    pub(crate) fn first_repeated(ids: &[K]) -> Result<Option<(usize, K)>> {
        let mut seen = Self::try_for_ids(ids)?;
        Ok(ids
            .iter()
            .enumerate()
            .find(|&(_, &id)| !seen.insert(id))
            .map(|(row, &id)| (row, id)))
    }
}

#[cfg(test)]
mod tests;
