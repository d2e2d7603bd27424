# The v2 schema (tables, columns, keys) is defined once, in the Rust core, and read
# from there when the package loads.
schema_env <- new.env(parent = emptyenv())

v2_schema <- function() {
  if (is.null(schema_env$schema)) {
    schema_env$schema <- ffi_profile_schema()
  }
  schema_env$schema
}
