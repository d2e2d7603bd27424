//! The profile core: a columnar model of profiler data (the v2 format of the R
//! package `profile`) and its validation, operations on profiles (combining,
//! the verbs, summaries), and the file formats (R's `Rprof()` text, Google's
//! pprof, OpenTelemetry profiles, folded stacks, speedscope, the browser
//! view's data).
//!
//! Layers, each using only those below it (`dev/ARCHITECTURE.md`, "Core
//! modules"; `dev/rust-layers.R` checks them): [`error`], [`resources`],
//! [`io`], [`model`], [`ops`], [`formats`]. Formats never import each other.
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
