//! The profile core: a columnar model of profiler data (the v2 format of the R
//! package `profile`), codecs for R's `Rprof()` text format and Google's pprof
//! protobuf format, validation, combining, and verbs from profile to profile.
//!
//! Nothing here knows about R. The R binding (the parent crate) only moves columns
//! between R vectors and [`model::Profile`]; every rule lives here so that it is
//! tested by `cargo test` alone.

mod alloc;
pub mod budget;
pub mod combine;
pub mod error;
pub mod folded;
mod id_index;
mod identity;
pub mod input;
pub mod json;
pub mod limits;
pub mod memory;
pub mod model;
pub mod otlp;
pub mod output;
pub mod pprof;
pub mod rprof;
pub mod sample_set;
pub mod schema;
pub mod source_text;
pub mod speedscope;
pub mod summary;
pub mod text;
mod threads;
pub mod validate;
pub mod verbs;
pub mod view;
mod wire;

#[cfg(test)]
mod props;
#[cfg(test)]
mod testing;

pub use error::{ProfileError, Result};
pub use model::{Profile, StrId, StringPool, NA_INT};
