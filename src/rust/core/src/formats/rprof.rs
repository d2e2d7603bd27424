//! R's `Rprof()` text format.
//!
//! What R writes (see `doprof()` in R's `src/main/eval.c`):
//!
//! ```text
//! memory profiling: GC profiling: line profiling: sample.interval=20000
//! #File 1: R/fib.R
//! :2345:81034:3145728:12:"<GC>" 1#7 "fib" 1#3 "main"
//! ```
//!
//! - A header per `Rprof()` call: flags (`memory profiling: `, `GC profiling: `,
//!   `line profiling: `) and the interval in microseconds. `Rprof(append = TRUE)`
//!   adds another header to the same file; each header starts a *segment* with its
//!   own `#File` numbering. We read each segment as one row of `sources`.
//! - `#File N: path` is written just before the first stack line that refers to file
//!   `N` (numbers count up from 1 in order of first use within a segment).
//! - One line per timer tick: with memory profiling, the prefix
//!   `:small:large:nodes:dups:` (vector heaps in 8-byte units, node heap in bytes,
//!   duplications since the previous tick); then the frames innermost first, each as
//!   `"name" `, verbatim (names can hold quotes and spaces: `"x[["a b"]]" `). With
//!   line profiling, `N#L ` before a frame is the line of file `N` that frame is
//!   executing (R writes it after the callee's name, so it sits to the left of the
//!   frame it belongs to). A reference with no frame to its right (and the space
//!   R ends it with; without the space the line was cut) is the line of
//!   the top-level code (code typed at the console or run with `R -f`, when it
//!   has source references): after the outermost frame (`1#3 "f" 2#20`), or
//!   alone when top-level code runs without a frame; it is read as an outermost
//!   frame of its own (see [`TOP_LEVEL_NAME`]). A tick with an empty stack is
//!   written only with memory profiling, as the prefix alone.
//! - The memory prefix is four fields of decimal digits, each followed by `:`.
//!   Anything else after a line's leading `:` (an empty, signed or non-digit
//!   field, a value above 2^64 - 1, fewer or more fields) is a format error
//!   naming the line, except in the last line of a file, cut off inside its
//!   prefix, which is passed over with the warning for cut lines.
//!
//! [`parse`] turns the text into a v2 [`Profile`](crate::model::Profile),
//! [`write()`] turns a profile back into text. For files R wrote, reading and
//! writing again gives the same bytes.

pub mod legacy;
mod read;
mod write;

#[cfg(test)]
mod tests;

pub use read::{
    parse, tick_time, CompactColumn, CompactRead, ParseOptions, Parsed, RprofContent, SampleShape,
    MICROSECONDS, R_LINE_LIMIT,
};
pub use write::{write, write_to_vec};

/// Warning for a line that ends in the middle of a frame, as profile 1.0.4 words it
/// (users match on this text).
pub const WARN_INCOMPLETE: &str =
    "Incomplete sampling information, increase bufsize in `Rprof()` or `start_profiler()` call";

/// Warning for unreadable content before the end of a line, as profile 1.0.4 words it.
pub const WARN_UNEXPECTED: &str = "Removing unexpected incomplete sampling information.";

/// Warning for an `N#L` reference to a file number without a `#File N:` line.
pub const WARN_UNDEFINED_FILE: &str =
    "Line profiling reference to a file number without a `#File` line; its file name is left empty.";

/// Sample value types of memory profiling (defined with the format's rules).
pub use crate::model::schema::MEMORY_TYPES;

/// Type and unit of the time samples: one per tick.
pub const SAMPLES_TYPE: (&str, &str) = ("samples", "count");

/// Name of the frame that stands for the top-level code: R writes a line
/// reference, and no name, after the outermost frame when the top-level call
/// has a source reference (`1#3 "f" 1#10 "g" 1#20`: `g` was called from line
/// 20). Its function has this name, an empty system name (R wrote none) and
/// the file of the reference.
pub use crate::model::TOP_LEVEL_NAME;

/// The flags and interval of a header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    pub memory: bool,
    pub gc: bool,
    pub line: bool,
    /// `sample.interval`, in microseconds.
    pub interval_us: u32,
}

const MEMORY_FLAG: &str = "memory profiling: ";
const GC_FLAG: &str = "GC profiling: ";
const LINE_FLAG: &str = "line profiling: ";
const INTERVAL_KEY: &[u8] = b"sample.interval=";

/// The interval `Rprof()` uses by default (20 ms), for profiles that do not say.
pub const DEFAULT_INTERVAL_US: u32 = 20_000;

impl Header {
    /// Parses a header line (without its line end). R writes the flags in a fixed
    /// order, but any order is accepted, and so are flags of the form
    /// `<words> profiling: ` that this version does not know (a newer R may add
    /// some); those are kept in the header text but have no meaning here.
    pub fn parse(line: &[u8]) -> Option<Header> {
        let mut h = Header::default();
        let mut rest = line;
        loop {
            if let Some(digits) = rest.strip_prefix(INTERVAL_KEY) {
                h.interval_us = parse_u32(digits)?;
                return Some(h);
            }
            let colon = memchr::memmem::find(rest, b": ")?;
            let (flag, after) = rest.split_at(colon + 2);
            let words = flag.get(..colon)?;
            if !words.ends_with(b" profiling")
                || !words
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_' | b'.'))
            {
                return None;
            }
            match flag {
                f if f == MEMORY_FLAG.as_bytes() => h.memory = true,
                f if f == GC_FLAG.as_bytes() => h.gc = true,
                f if f == LINE_FLAG.as_bytes() => h.line = true,
                _ => {}
            }
            rest = after;
        }
    }

    /// The header line R would write for these flags (without the line end).
    pub fn to_line(&self) -> String {
        let mut s = String::new();
        if self.memory {
            s.push_str(MEMORY_FLAG);
        }
        if self.gc {
            s.push_str(GC_FLAG);
        }
        if self.line {
            s.push_str(LINE_FLAG);
        }
        s.push_str("sample.interval=");
        s.push_str(itoa::Buffer::new().format(self.interval_us));
        s
    }
}

/// A decimal number of at most `u32::MAX` made only of ASCII digits.
fn parse_u32(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
    }
    u32::try_from(v).ok()
}

/// A decimal number of at most `u64::MAX` made only of ASCII digits.
fn parse_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}
