//! R's allocation profiler, `Rprofmem()`: one line per allocation.
//!
//! What R writes (`R_ReportAllocation()` and `R_ReportNewPage()` in R's
//! `src/main/memory.c`):
//!
//! ```text
//! 3736 :"c" "f" "g"
//! new page:"paste0" "FUN" "lapply"
//! 80040 :
//! ```
//!
//! - A large vector (or, with a threshold, any vector above it) is `N :` and
//!   its size in bytes; a new page for small vectors is `new page:` (R does not
//!   say how many bytes a page takes).
//! - Then the call stack, innermost first, each frame as `"name" ` (a function
//!   called by an expression that is no symbol is `<Anonymous>`); nothing for
//!   an allocation at top level. Names are written verbatim (no escapes).
//! - `Rprofmem(append = TRUE)` adds lines to the file without a header: runs
//!   appended to one file are one source.
//!
//! [`read`] turns the text into a v2 [`Profile`]: one sample per record, the
//! values `alloc_objects` (count, 1) and `alloc_space` (bytes, the size; 0 for
//! a new page), a new page marked by the sample label [`NEW_PAGE_LABEL`]
//! (`what` = `"new page"`, the name and value of `profmem::readRprofmem()`'s
//! column), frames as functions (no file, no line). [`write()`] writes the
//! allocation samples of a profile back in the same format.

mod read;
mod write;

#[cfg(test)]
mod tests;

pub use read::{read, read_file, RprofmemContent};
pub use write::write;

/// Sample type and unit of the bytes of an allocation (Go's heap profiles' name).
pub const ALLOC_SPACE: (&str, &str) = ("alloc_space", "bytes");

/// Sample type and unit of the number of allocations (Go's heap profiles' name).
pub const ALLOC_OBJECTS: (&str, &str) = ("alloc_objects", "count");

/// The sample label (key, value) of a `new page:` line.
pub const NEW_PAGE_LABEL: (&str, &str) = ("what", "new page");

/// The `source_type` of an `Rprofmem()` file.
pub const SOURCE_TYPE: &str = "rprofmem";
