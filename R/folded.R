#' Folded stacks
#'
#' Folded (or collapsed) stacks are the text format that flame-graph tools read
#' and write (`flamegraph.pl`, speedscope, inferno, ...): one line per distinct
#' stack, its frames from the root to the innermost separated by `;`, a space, and
#' the value of the stack:
#'
#' ```
#' main;f;g 42
#' ```
#'
#' `write_folded()` writes the stacks of a profile for one sample type, merged by
#' function name (samples with the same stack add up), in byte order of the
#' stacks. Samples without frames have no line, and stacks whose values add up to
#' zero are left out. `read_folded()` reads such a file into a v2 profile with one
#' sample per line (so nothing is merged), the line's value as its value, one
#' function per distinct frame name and one location per function (line 0,
#' unknown). Its source has `source_type = "folded"`.
#'
#' # Frame names
#'
#' A frame name may contain spaces. So that any name survives the round trip, a
#' backslash in a name is written `\\`, a semicolon `\x3b`, a line feed `\n` and a
#' carriage return `\r`; `read_folded()` turns these back and keeps other
#' backslashes as they are (as other tools write them, e.g. in Windows paths).
#' Values are written as integers when they are whole numbers, in the shortest
#' exact decimal form otherwise; `read_folded()` reads both.
#'
#' @inheritParams profile_summary
#' @param path The file to write or read. `read_folded()` also reads
#'   gzip-compressed files.
#' @return `write_folded()` returns `x`, invisibly. `read_folded()` returns a v2
#'   profile (see [profile_v2]).
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' path <- tempfile(fileext = ".folded")
#' write_folded(x, path)
#' head(readLines(path))
#'
#' y <- read_folded(path)
#' profile_summary(y, n = 5)
write_folded <- function(x, path, type = NULL) {
  message <- "Can't write {.arg x} as folded stacks to {.file {path}}."
  with_profile_errors("invalid", message, path = path, {
    path <- check_file_path(path)
    parts <- summary_parts(x)
    sample_type <- choose_sample_type(parts, type)
    parts <- stacks_in_memory(parts, sample_type$type)
    keys <- keys_by_name(location_frames(parts))
    input <- stack_input(parts, sample_type$type, keys$key, length(keys$labels))
    rust_value(
      ffi_profile_write_folded(input, keys$labels, native_path(path)),
      "Can't write folded stacks to {.file {path}}.",
      path = path
    )
  })
  invisible(x)
}

#' @rdname write_folded
#' @param type For `read_folded()`: the sample type and `unit` of the values in
#'   the file (a folded file does not say); for `write_folded()`: the sample type
#'   to write, chosen as in [profile_summary()] by default.
#' @param unit The unit of the values in the file.
#' @param source_uri Where the file came from, recorded in the `sources` table.
#' @param max_size The largest (decompressed) file size accepted, in bytes. The
#'   memory a read may use is bounded by the option `profile.max_memory` (see
#'   [profile_error]).
#' @export
read_folded <- function(path, type = "samples", unit = "count", source_uri = path,
                        max_size = default_max_size()) {
  with_profile_errors("internal", "Can't read folded stacks from {.file {path}}.", path = path, {
    path <- check_file_path(path)
    if (!rlang::is_string(type) || !rlang::is_string(unit)) {
      abort_argument("{.arg type} and {.arg unit} must be single strings.")
    }
    source_uri <- check_source_uri(source_uri)
    max_size <- check_max_size(max_size)
    max_memory <- default_max_memory()
    check_readable_file(path)
    bundle <- rust_value(
      ffi_profile_read_folded(
        native_path(path), as_valid_utf8(type), as_valid_utf8(unit), source_uri, max_size,
        max_memory, compact_columns_option()
      ),
      "Can't read folded stacks from {.file {path}}.",
      path = path
    )
    dm_from_bundle(bundle)
  })
}
