#' Read and write pprof files
#'
#' @description
#' `read_pprof()` reads a profile in pprof format, the protocol buffer format of
#' Google's [pprof](https://github.com/google/pprof) tool, written by Go's
#' `runtime/pprof`, by `go tool pprof -proto` and by many other profilers. It
#' reads gzip-compressed and plain files.
#'
#' `write_pprof()` writes a profile, v2 or v1, from any source (Rprof or pprof),
#' as a gzip-compressed pprof file that `go tool pprof` reads, whatever the file
#' extension.
#'
#' @details
#' # Reading
#'
#' Each pprof file becomes one `sources` row (`source_type` `"pprof"`,
#' `source_timestamp` from `time_nanos`) and each pprof `Sample` one sample, with
#' one `sample_values` row per sample type of the file, under the file's own type
#' and unit names. Nothing is aggregated. What pprof carries beyond the seven
#' required tables is kept (see [profile_v2]): the declared sample types
#' (`sample_types`), labels (`sample_labels`: a string `value`, or a number `num`
#' with its `num_unit`), mappings (`mappings`, addresses as `"0x..."` text),
#' comments (`source_comments`), the profile's `period_type`, `period`,
#' `time_nanos`, `duration_nanos`, `default_sample_type`, `doc_url`,
#' `drop_frames` and `keep_frames` (columns of `sources`), and the location
#' address, mapping, `is_folded` and `column` (columns of `locations`). pprof has
#' no time per sample: `samples$time` is `NA`.
#'
#' pprof writes 0 for fields that are not set; they read as `NA`: `time_nanos`
#' (and `source_timestamp`), `period`, `duration_nanos`, the string fields of
#' `sources`, and a location's `address` and `mapping_id`. A numeric label has
#' `value` `NA`, a string label `num` `NA`. Sample values and numeric labels
#' become doubles, exact up to 2^53; `time_nanos` is kept as text, exactly.
#'
#' A pprof location with inlined calls holds several lines. Each line becomes a
#' location of its own and a frame of its own in the stacks, innermost first, so
#' no frame is lost; `locations$inlined_into` links it to the next line of the
#' same pprof location. The outermost line keeps the pprof location id; inlined
#' lines get ids after the largest one. (If pprof ids do not fit R integers, all
#' ids are renumbered 1, 2, ... in file order.)
#'
#' A malformed file is refused with an error of class `profile_error` (see
#' [profile_error]) that says what is wrong: string indices out of range, ids
#' that are zero, repeated or refer to nothing, samples whose number of values
#' differs from the number of sample types, truncated or corrupt data, files
#' that are not pprof protobuf (such as legacy gperftools profiles), and data
#' that decompress to more than `max_size` bytes.
#'
#' # Agreement with Go's parser
#'
#' `read_pprof()` reads exactly the protobuf files that Go's own parser
#' (`github.com/google/pprof/profile`, what `go tool pprof` uses: `Parse()`
#' and its `CheckValid()`) reads, and the same samples, values, stacks and
#' labels from them; a differential test compares the two on the package's
#' pprof files and on tens of thousands of damaged variants of them. So, as in
#' Go: the string table must start with the empty string; a location's
#' `mapping_id` that names no mapping means no mapping (`NA`); a field number
#' the format does not have is skipped (also 0), while the group wire types
#' are refused; a second non-zero `time_nanos` (two profiles concatenated) is
#' refused; a label with a string (`str`) is a string label, else one with a
#' number or unit is a numeric label, and a label with neither is dropped;
#' samples need sample types. `doc_url` and a line's `column` are read as the
#' current Go releases read them (older ones skip these fields).
#'
#' Go's parser also reads legacy formats: when a file is not a valid protobuf
#' message, `Parse()` tries gperftools' text and binary CPU and heap profiles,
#' Java profiles and Go's `debug=1` text. `read_pprof()` reads the protobuf
#' format only and refuses those, naming them when it recognises them (convert
#' them with `go tool pprof -proto`). The differential test therefore compares
#' with Go's parsing without that fallback: the data gunzipped as `Parse()`
#' does, then `ParseUncompressed()` and `CheckValid()`.
#'
#' Deliberate differences, where the v2 tables cannot hold what Go holds:
#' - Sample values, numeric labels, `period` and `duration_nanos` are doubles
#'   (exact up to 2^53; Go keeps 64-bit integers).
#' - Line numbers, columns and start lines are R integers, 0 meaning unknown: a
#'   number that is negative or over 2^31 - 1 reads as `NA`.
#' - A sample type is identified by its name: a name declared again (Go accepts
#'   that) gets the suffix `#2` (`#3`, ...: the smallest that no type of the
#'   file has), so each value keeps its own type.
#' - Strings are valid UTF-8: invalid bytes and NUL read as `<xx>` (see
#'   [profile_v2]).
#' - Fields that are not set read as `NA` rather than as Go's zero values (see
#'   above), and inlined lines become locations of their own.
#' - The system name of functions in the `[R]` mapping that `write_pprof()`
#'   leaves out is put back (see "Writing").
#' - Limits that protect memory refuse files Go would read given the memory:
#'   `max_size`, the option `profile.max_memory`, stacks deeper than 10^6
#'   frames, inlined lines repeated to more than 32 frames per byte of the
#'   file, and counts beyond R's integers give a `profile_error_limit`; so does
#'   a field of a compressed file that claims more bytes than `max_size`
#'   allows, as soon as it is inflated (Go reads on to the end of the data).
#' - Data whose first 64 KiB hold no field of a pprof message (only fields the
#'   format does not have, such as zero bytes: field 0) are refused there as not
#'   a pprof file, without reading the rest; Go skips such fields to the end.
#'
#' With `version = "1.0"`, `read_pprof()` returns what profile 1.0.x returned: a
#' v1 object (see [profile_v1]) with the first sample type only, the last
#' (outermost) line of each location, and `"<?>"` for empty function names.
#' v1 holds only sample counts (`samples`/`count` as first sample type), so
#' other profiles (heap, goroutine, mutex, block) give an error of class
#' `profile_error_unsupported`; read them with `version = "2.0"`.
#'
#' # Writing
#'
#' A pprof file has one list of sample types: the writer unites the sample types
#' of all sources, in the order they first appear, and writes 0 where a sample
#' has no value of a type. Gauges (`small_vector_heap`, `large_vector_heap`,
#' `node_heap`: heap sizes at a tick) are not written, because pprof sums
#' sample values; a profile with samples and no other sample type is refused
#' (`profile_error_unsupported`), since a pprof file with samples must declare
#' a type. Rprof memory profiles thus give `alloc_size` and
#' `duplications`, so `go tool pprof -sample_index=alloc_size` works. Rprof
#' samples also get `cpu`/`nanoseconds` (count times the sampling interval), and
#' the file's `period_type` and `period` say the interval.
#'
#' Raw samples with equal stacks and labels are summed into one pprof sample.
#' Samples read from pprof files are written as they were read, one to one, and
#' so are the rows of a v1 object, which are aggregated already (each with its
#' `value`, as profile 1.0.x wrote them): a pprof or v1 profile reads back as it
#' was. Profile-level fields (period, time, duration, drop and keep frames,
#' default sample type, documentation URL) come from the first source that has
#' them; comments from all sources.
#'
#' Frames from Rprof (and other non-pprof sources) are written in a mapping
#' named `[R]` with an address per location, so that pprof does not look for a
#' binary to symbolize. pprof runs function names through a C++ demangler when
#' a function's name and system name are equal, which turns `<GC>` or
#' `<Anonymous>` into `<unknown>`; for these frames the writer therefore omits
#' the system name when it equals the name, and `read_pprof()` puts it back.
#'
#' Frames of OTLP files (see [read_otlp()]) keep their mappings, never `[R]`.
#' Those without a mapping or an address (async-profiler's Java frames) are
#' written in a mapping with an address per location, named after the program
#' the OTLP data name: the resource attribute `process.executable.name`, else
#' the file name of `process.executable.path`, else that of the scope's name
#' (the profiler); when the data name none, or the sources name different
#' ones, `[otlp]`. `go tool pprof` shows that name as the profile's `File:`.
#' OTLP mappings that do not say what they hold (no `pprof.mapping.has_*`
#' attribute, as the eBPF profiler writes them) are marked as having
#' functions: the profiler symbolized them where it ran, and `go tool pprof`
#' would otherwise look for each binary on this machine and print "Local
#' symbolization failed" for each one it cannot open.
#'
#' The samples of a recording of parallel code ([profile_record()], one
#' source per R process) are labelled with their process: `pid` (a number),
#' `host` and `process` (`"main"` or `"worker"`), so that pprof keeps the
#' processes' samples apart and `go tool pprof -tags` shows each process's
#' share (`-tagfocus=pid=4242` one process alone). `read_pprof()` reads them
#' back as labels (pprof has no processes of its own). The recording's tables
#' `tasks` and `waits` have no place in a pprof file and are not written
#' (nor by [write_otlp()] or [write_speedscope()]); a database
#' ([profile_db_append()]) or [saveRDS()] keeps them.
#'
#' The file is written to a temporary file next to `path` and renamed when
#' complete, so an error never leaves a partly written file.
#'
#' @param path Path of the file to read or write.
#' @param ... Not used; must be empty.
#' @param version `"2.0"` for a v2 profile (see [profile_v2]); `"1.0"` for a
#'   v1 object as returned by profile 1.0.x (see [profile_v1]). The default is
#'   the option `profile.version`, else `"2.0"`: `options(profile.version =
#'   "1.0")` makes every reader return v1 objects when `version` is not given,
#'   so that a script or package written for profile 1.0.x runs unchanged.
#' @param source_uri Recorded as `source_uri` in the `sources` table (v2).
#'   Defaults to `path`.
#' @param max_size The largest size, in bytes, of the file and of its data after
#'   decompression. Protects memory against decompression bombs; raise it to read
#'   larger profiles. The default is the option `profile.max_size`, else 4 GiB.
#'   The memory a read may use is bounded by the option `profile.max_memory`.
#'   See [profile_error] for these and the other limits.
#' @param source_text Whether to keep the text of the source files that the
#'   profile's frames name (v2: the table `source_lines`, see [profile_v2]),
#'   which the source panel of [profile_view()] shows: `TRUE` reads them now,
#'   while they exist, and looks up relative file names in the working
#'   directory; a directory looks them up there instead; `FALSE` keeps none.
#'   The default is the option `profile.source_text`, else `TRUE`. Only
#'   regular files whose names end in a source-code extension (`.R`, `.Rmd`,
#'   `.go`, `.c`, `.cpp`, `.rs`, `.py`, ...) are read, text only (no NUL
#'   byte), up to 1 MiB each and 16 MiB in all; the others have no text.
#' @param x A profile: a v2 `dm` or a v1 `profile_data` object.
#' @return `read_pprof()`: a v2 profile (a `dm`), or a v1 `profile_data`
#'   object with `version = "1.0"`. `write_pprof()`: `x`, invisibly.
#' @seealso [read_rprof()], [write_rprof()] for Rprof files;
#'   [combine_profiles()].
#' @export
#' @examples
#' path <- system.file("samples/pprof/cpu.pb.gz", package = "profile")
#' x <- read_pprof(path)
#' x
#' tables <- dm::dm_get_tables(x)
#' tables$sample_types
#' head(tables$sample_labels)
#'
#' # v1, as profile 1.0.x read it
#' read_pprof(path, version = "1.0")
#'
#' # Write, read back
#' out <- tempfile(fileext = ".pb.gz")
#' write_pprof(x, out)
#' nrow(read_pprof(out)$samples) == nrow(tables$samples)
#'
#' # v1 objects are written too
#' v1_path <- system.file("samples/proto/1.out.prof.pb.gz", package = "profile")
#' v1 <- read_pprof(v1_path, version = "1.0")
#' write_pprof(v1, out)
read_pprof <- function(path, ..., version = default_version(), source_uri = path,
                       max_size = default_max_size(), source_text = default_source_text()) {
  message <- "Can't read the pprof file {.file {path}}."
  with_profile_errors("internal", message, path = path, {
    args <- check_read_args(path, ...,
      version = version, source_uri = source_uri, max_size = max_size,
      source_text = source_text
    )
    bundle <- rust_value(
      ffi_pprof_read(
        native_path(path), args$source_uri, args$max_size, args$max_memory, compact_columns_option()
      ),
      message,
      path = path
    )
    if (args$version == "1.0") {
      v1_from_pprof(decode_bundle(bundle))
    } else {
      dm_from_v2_tables(with_source_lines(decode_bundle(bundle), args$source_text))
    }
  })
}

#' @rdname read_pprof
#' @export
write_pprof <- function(x, path) {
  message <- "Can't write {.arg x} as the pprof file {.file {path}}."
  with_profile_errors("invalid", message, path = path, {
    path <- check_file_path(path)
    if (inherits(x, "profile_data")) {
      validate_v1(x)
      tables <- pprof_tables_from_v1(x)
      aggregate <- FALSE
    } else {
      # what R must check; the writer in Rust checks the content rules
      tables <- check_v2_tables(profile_for_writing(x))
      check_pprof_types(tables)
      aggregate <- TRUE
    }
    rust_value(
      ffi_pprof_write(bundle_from_tables(tables), native_path(path), aggregate),
      "Can't write the pprof file {.file {path}}.",
      path = path
    )
  })
  invisible(x)
}

# A pprof file with samples declares at least one sample type (Go's parser
# refuses it otherwise), and the writer leaves gauges out.
check_pprof_types <- function(tables, call = rlang::caller_env()) {
  types <- unique(as.character(tables$sample_values$type))
  gauges <- v2_schema()$gauge_types
  if (nrow(tables$samples) > 0L && all(types %in% gauges)) {
    abort_profile("unsupported", c(
      "{.arg x} has samples but no sample type a pprof file can hold.",
      i = "Gauges ({.val {gauges}}) are not written: pprof sums sample values."
    ), gauges = gauges, call = call)
  }
}
