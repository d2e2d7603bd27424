//! The strings of a profile: each distinct string once in a [`StringPool`],
//! columns holding their ids ([`StrId`], 0 for NA).

use crate::error::Result;
use crate::resources::budget::Budget;
use rustc_hash::FxHashMap;

/// What the allocator takes for a string's heap block beyond its bytes
/// (header and rounding), for the memory budget.
const STRING_ALLOCATION_BYTES: u64 = 16;

/// Id of a string in a [`StringPool`]; `StrId::NA` is R's `NA_character_`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

impl StrId {
    pub const NA: StrId = StrId(0);
    pub fn is_na(self) -> bool {
        self.0 == 0
    }
}

/// Insertion-ordered set of strings; slot 0 stands for NA.
#[derive(Debug, Clone)]
pub struct StringPool {
    strings: Vec<String>,
    index: FxHashMap<String, StrId>,
}

impl Default for StringPool {
    fn default() -> Self {
        StringPool {
            strings: vec![String::new()],
            index: FxHashMap::default(),
        }
    }
}

impl StringPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, adding it on first sight.
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.to_owned());
        self.index.insert(s.to_owned(), id);
        id
    }

    /// [`intern`](Self::intern) of a string from the input: a new string's
    /// memory (its two copies, in the list and in the index) is charged to
    /// `budget` and asked for fallibly first.
    pub fn try_intern(&mut self, s: &str, budget: &Budget) -> Result<StrId> {
        if let Some(&id) = self.index.get(s) {
            return Ok(id);
        }
        let what = || "the names and other strings of the profile".to_string();
        budget.room(&mut self.strings, 1, what)?;
        budget.room(&mut self.index, 1, what)?;
        budget.charge_items(2, s.len() as u64 + STRING_ALLOCATION_BYTES, what)?;
        Ok(self.intern(s))
    }

    /// Like [`intern`](Self::intern) for an optional string (None is NA).
    pub fn intern_opt(&mut self, s: Option<&str>) -> StrId {
        match s {
            Some(s) => self.intern(s),
            None => StrId::NA,
        }
    }

    /// The id of `s` if it is in the pool.
    pub fn lookup(&self, s: &str) -> Option<StrId> {
        self.index.get(s).copied()
    }

    /// The string of `id`; None for NA or an id that is not in the pool.
    pub fn get(&self, id: StrId) -> Option<&str> {
        if id.is_na() {
            return None;
        }
        self.strings.get(id.0 as usize).map(|s| s.as_str())
    }

    /// Like [`get`](Self::get), with NA and unknown ids as "".
    pub fn str(&self, id: StrId) -> &str {
        self.get(id).unwrap_or("")
    }

    /// All slots in id order; slot 0 (NA) is an empty placeholder.
    pub fn as_slice(&self) -> &[String] {
        &self.strings
    }

    /// Number of slots including the NA slot.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }
}
