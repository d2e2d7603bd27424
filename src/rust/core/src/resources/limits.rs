//! The limits of a read: the largest decompressed size, the deepest stack and
//! the most memory it may take. The readers take them with their input
//! ([`crate::io::input`]) and the memory budget enforces the last
//! ([`crate::resources::budget`]); both use this module and it uses neither.

use crate::error::{ProfileError, Result};

/// Limits that protect memory while reading.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest decompressed size accepted, in bytes.
    pub max_decompressed_bytes: u64,
    /// Most frames one sample may have. R cannot nest calls deeper than 500 000
    /// (its `expressions` option), and Go records at most a few hundred, so a
    /// deeper stack is damaged or hostile data.
    pub max_stack_depth: usize,
    /// Most memory a read may use, Rust and R together (see [`crate::resources::budget::Budget`]).
    pub max_memory: u64,
}

/// Default of [`Limits::max_decompressed_bytes`]: 4 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;
/// Default of [`Limits::max_stack_depth`].
pub const DEFAULT_MAX_STACK_DEPTH: usize = 1_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_decompressed_bytes: DEFAULT_MAX_BYTES,
            max_stack_depth: DEFAULT_MAX_STACK_DEPTH,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

impl Limits {
    /// The default limits with another size limit.
    pub fn with_max_bytes(max_decompressed_bytes: u64) -> Self {
        Limits {
            max_decompressed_bytes,
            ..Limits::default()
        }
    }

    /// An error unless a stack of `depth` frames is within the limit; `place` says
    /// where the stack is ("line 12", "sample 3").
    pub fn check_stack_depth(&self, depth: usize, place: impl FnOnce() -> String) -> Result<()> {
        if depth > self.max_stack_depth.min(i32::MAX as usize) {
            return Err(ProfileError::limit(format!(
                "{}: the stack has more than {} frames, over the limit (damaged or hostile data?)",
                place(),
                self.max_stack_depth
            )));
        }
        Ok(())
    }
}

/// Default of [`Limits::max_memory`]: 4 GiB. A real Rprof recording of 1e7
/// samples with memory and line profiling (a file of about 1 GB) is charged
/// about 1.6 GB by its read (`bench/README.md`), so the default reads it with
/// room to spare, while a decompression bomb (which claims far more) is refused
/// long before the machine runs short.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;
