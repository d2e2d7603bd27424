# The v2 schema (tables, columns, keys, limits) is defined once, in the Rust
# core, and read from there at its first use (ffi_profile_schema()).
schema_env <- new.env(parent = emptyenv())

v2_schema <- function() {
  if (is.null(schema_env$schema)) {
    schema_env$schema <- ffi_profile_schema()
  }
  schema_env$schema
}
