//! Bytes in and out, knowing no profile: files read under the limits and gzip
//! inflated while a format looks at them ([`input`]), atomic writes
//! ([`output`]), bytes as UTF-8 text ([`text`]), the lines of source files
//! ([`source_text`]), the protobuf wire format ([`wire`]) and JSON text
//! ([`json`]).

pub mod input;
pub mod json;
pub mod output;
pub mod source_text;
pub mod text;
pub(crate) mod wire;
