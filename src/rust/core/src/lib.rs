//! The profile core: a columnar model of profiler data (the v2 format of the R
//! package `profile`), codecs for R's `Rprof()` text format and Google's pprof
//! protobuf format, validation, combining, and verbs from profile to profile.
//!
//! Nothing here knows about R. The R binding (the parent crate) only moves columns
//! between R vectors and [`model::Profile`]; every rule lives here so that it is
//! tested by `cargo test` alone.

pub mod error;
pub mod formats;
pub mod io;
pub mod model;
pub mod ops;
pub mod resources;

#[cfg(test)]
mod props;
#[cfg(test)]
mod testing;

pub use error::{ProfileError, Result};
pub use model::{Profile, StrId, StringPool, NA_INT};
