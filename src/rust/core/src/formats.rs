//! The file formats, each a reader and/or a writer between its bytes and the
//! model: Rprof ([`rprof`]), pprof ([`pprof`]), OpenTelemetry profiles
//! ([`otlp`]), folded stacks ([`folded`]), speedscope ([`speedscope`]) and the
//! browser view's data ([`view`]). A format never imports another: what two
//! share lives in a lower layer, and a conversion from one format to another
//! goes through the model (one reads, the other writes).

pub mod folded;
pub mod otlp;
pub mod pprof;
pub mod rprof;
pub mod speedscope;
pub mod view;
