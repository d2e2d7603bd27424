//! The file formats, each a reader and/or a writer between its bytes and the
//! model: Rprof ([`rprof`]), `Rprofmem()` allocations ([`rprofmem`]), pprof ([`pprof`]), OpenTelemetry profiles
//! ([`otlp`]), folded stacks ([`folded`]), speedscope ([`speedscope`]) and the
//! browser view's data ([`view`]). A format never imports another: what two
//! share lives in a lower layer, and a conversion from one format to another
//! goes through the model (one reads, the other writes).

use crate::resources::budget::Budget;

pub mod folded;
pub mod otlp;
pub mod pprof;
pub mod rprof;
pub mod rprofmem;
pub mod speedscope;
pub mod view;

/// What data that hold no OTLP message are, of the other formats the OTLP
/// reader names in its refusal (its [`otlp::OtherFormats`]; here, where the
/// formats are known together, since none imports another): a pprof file (a
/// `perftools.profiles.Profile` whose string table starts with "" and that
/// declares sample types).
pub fn other_format_than_otlp(data: &[u8], budget: &Budget) -> Option<&'static str> {
    let m = pprof::decode_message(data, budget)?;
    (m.string_table.first().is_some_and(|s| s.is_empty()) && !m.sample_type.is_empty())
        .then_some("it is a pprof file; read it with read_pprof()")
}
