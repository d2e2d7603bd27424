//! The memory budget of one read: what a read may use, Rust and R together,
//! checked before the memory is asked for.
//!
//! A read charges the budget before each allocation whose size the input
//! decides (the data, the records and columns of the samples, each new frame,
//! function and string, the R copy made by the binding) and releases what it
//! frees; a charge that would take the total over the cap is a
//! [`ProfileError::Limit`] instead of the allocation. The charges are the
//! allocations' sizes, or bounds of them where a structure (a hash map) keeps
//! room to grow, so that the total is an estimate of the read's resident memory
//! from above.
//!
//! The cap is the option `profile.max_memory` ([`Limits::max_memory`]), and
//! never more than the address space the process has left when the read
//! starts (`ulimit -v`, see [`crate::resources::memory::address_space_left`]): there an
//! allocation fails instead of waiting for memory, and a failed allocation that
//! Rust cannot report (a hash map growing) would end the R session.

use crate::error::{ProfileError, Result};
use crate::resources::limits::Limits;
use std::collections::{HashMap, TryReserveError};
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU64, Ordering};

/// Address space a read leaves unclaimed for what its budget does not see:
/// R's own small allocations, the stacks and allocator arenas of the threads
/// that read in parallel.
const ADDRESS_SPACE_RESERVE: u64 = 256 << 20;

/// Address space the allocator may reserve for each thread that reads in
/// parallel (glibc reserves 64 MiB per arena).
const ADDRESS_SPACE_PER_THREAD: u64 = 64 << 20;

/// Why the cap is what it is, for the message of a refusal.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cap {
    /// The option `profile.max_memory`.
    Option,
    /// The address space left (`ulimit -v`), smaller than the option.
    AddressSpace,
}

/// The memory budget of one read (see the module documentation). Shared by the
/// threads of a parallel read.
#[derive(Debug)]
pub struct Budget {
    limits: Limits,
    cap: u64,
    cap_by: Cap,
    used: AtomicU64,
    /// The most that was charged at once.
    peak: AtomicU64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(Limits::default())
    }
}

impl Budget {
    /// A budget of `limits.max_memory` bytes, or of the address space the
    /// process has left if that is less.
    pub fn new(limits: Limits) -> Budget {
        let threads =
            crate::resources::threads::cores().min(crate::resources::threads::MAX_THREADS) as u64;
        let reserve = ADDRESS_SPACE_RESERVE + threads * ADDRESS_SPACE_PER_THREAD;
        let left =
            crate::resources::memory::address_space_left().map(|left| left.saturating_sub(reserve));
        match left {
            Some(left) if left < limits.max_memory => {
                Budget::capped(limits, left, Cap::AddressSpace)
            }
            _ => Budget::capped(limits, limits.max_memory, Cap::Option),
        }
    }

    /// A budget of the address space left only, for work that is not a read
    /// (combining, transforming profiles the user holds already).
    pub fn address_space_only() -> Budget {
        Budget::new(Limits {
            max_memory: u64::MAX,
            ..Limits::default()
        })
    }

    fn capped(limits: Limits, cap: u64, cap_by: Cap) -> Budget {
        Budget {
            limits,
            cap,
            cap_by,
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
        }
    }

    /// The read's other limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Bytes charged and not released.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// The most that was charged at once: the estimate of the read's peak
    /// memory.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Bytes that may still be charged.
    pub fn available(&self) -> u64 {
        self.cap.saturating_sub(self.used())
    }

    /// Charges `bytes` for `what` ("the decompressed data"), or refuses them if
    /// the total would exceed the cap (nothing is charged then).
    pub fn charge(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<()> {
        let fits = |used: u64| Some(used.saturating_add(bytes)).filter(|&total| total <= self.cap);
        match self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, fits)
        {
            Ok(before) => {
                self.peak.fetch_max(before + bytes, Ordering::Relaxed);
                Ok(())
            }
            Err(used) => Err(self.refusal(used.saturating_add(bytes), &what())),
        }
    }

    /// [`charge`](Self::charge) of `count` items of `each` bytes.
    pub fn charge_items(
        &self,
        count: usize,
        each: u64,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        self.charge((count as u64).saturating_mul(each), what)
    }

    /// Releases `bytes` charged before (memory freed).
    pub fn release(&self, bytes: u64) {
        // Never below zero, whatever a caller releases.
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }

    /// An error unless `bytes` more would fit; charges nothing. For a need
    /// known before the memory is asked for (a stream being counted).
    pub fn check(&self, bytes: u64, what: impl FnOnce() -> String) -> Result<()> {
        let total = self.used().saturating_add(bytes);
        if total > self.cap {
            return Err(self.refusal(total, &what()));
        }
        Ok(())
    }

    /// Room in `c` for `additional` more elements: if it lacks that, it grows as
    /// a push would (to twice its capacity, or more if asked), the growth
    /// charged first and the memory asked for fallibly. Every collection a read
    /// fills from its input grows this way, so that neither the budget nor a
    /// refused allocation can be passed over.
    pub fn room(
        &self,
        c: &mut impl Growable,
        additional: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        let (len, capacity) = (c.elements(), c.capacity());
        if capacity.saturating_sub(len) >= additional {
            return Ok(());
        }
        let target = len
            .saturating_add(additional)
            .max(capacity.saturating_mul(2))
            .max(8);
        let what = what();
        self.charge_items(target - capacity, c.element_bytes(), || what.clone())?;
        c.try_reserve(target - len)
            .map_err(|_| refused_by_system(&what))
    }

    /// Releases the memory of `c`, which is about to be freed (as
    /// [`room`](Self::room) charged it: its capacity).
    pub fn release_all(&self, c: &impl Growable) {
        self.release((c.capacity() as u64).saturating_mul(c.element_bytes()));
    }

    /// A new vector with room for `n` values, charged and asked for fallibly,
    /// huge pages advised for a large one.
    pub fn vec_with_capacity<T>(&self, n: usize, what: impl FnOnce() -> String) -> Result<Vec<T>> {
        let what = what();
        self.charge_items(n, std::mem::size_of::<T>() as u64, || what.clone())?;
        let mut v = Vec::new();
        crate::resources::memory::try_reserve_advised(&mut v, n)
            .map_err(|_| refused_by_system(&what))?;
        Ok(v)
    }

    fn refusal(&self, total: u64, what: &str) -> ProfileError {
        let needs = format!(
            "reading it needs at least {} of memory ({what})",
            size_text(total)
        );
        ProfileError::limit(match self.cap_by {
            Cap::Option => format!(
                "{needs}, more than the limit of {}; raise the option `profile.max_memory` to read it",
                size_text(self.cap)
            ),
            Cap::AddressSpace => format!(
                "{needs}, more than the {} of address space this process has left (`ulimit -v`); \
                 the option `profile.max_memory` ({}) cannot raise that",
                size_text(self.cap),
                size_text(self.limits.max_memory)
            ),
        })
    }
}

/// The error for memory the system refused although the budget allowed it.
pub fn refused_by_system(what: &str) -> ProfileError {
    ProfileError::limit(format!("the system refused the memory for {what}"))
}

/// A collection that grows when it is full: a vector, a hash map, a table of
/// the model (see [`Budget::room`]).
pub trait Growable {
    /// Elements it holds.
    fn elements(&self) -> usize;
    /// Elements it holds without growing.
    fn capacity(&self) -> usize;
    /// Bytes of memory per element of capacity.
    fn element_bytes(&self) -> u64;
    /// Room for `additional` more elements, or the allocator's refusal.
    fn try_reserve(&mut self, additional: usize) -> std::result::Result<(), TryReserveError>;
}

impl<T> Growable for Vec<T> {
    fn elements(&self) -> usize {
        Vec::len(self)
    }

    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }

    fn element_bytes(&self) -> u64 {
        std::mem::size_of::<T>() as u64
    }

    fn try_reserve(&mut self, additional: usize) -> std::result::Result<(), TryReserveError> {
        Vec::try_reserve_exact(self, additional)
    }
}

impl<K: Eq + Hash, V, S: BuildHasher> Growable for HashMap<K, V, S> {
    fn elements(&self) -> usize {
        HashMap::len(self)
    }

    fn capacity(&self) -> usize {
        HashMap::capacity(self)
    }

    /// An entry and its control byte, with the table's slack: it holds at most
    /// 7 entries per 8 slots, and its slots are a power of two.
    fn element_bytes(&self) -> u64 {
        (std::mem::size_of::<(K, V)>() as u64 + 1) * 16 / 7
    }

    fn try_reserve(&mut self, additional: usize) -> std::result::Result<(), TryReserveError> {
        HashMap::try_reserve(self, additional)
    }
}

/// A size for people: "1.5 GiB (1610612736 bytes)".
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(&str, u32); 3] = [("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if bytes >= 1 << shift {
            let value = bytes as f64 / (1u64 << shift) as f64;
            return format!("{value:.1} {unit} ({bytes} bytes)");
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests;
