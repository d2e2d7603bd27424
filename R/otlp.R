#' Read and write OpenTelemetry profiles
#'
#' @description
#' `read_otlp()` reads a file of the OpenTelemetry profiles signal (OTLP): what
#' the OpenTelemetry eBPF profiler, async-profiler, the OpenTelemetry collector
#' (its file exporter) and Pyroscope write. A file holds one `ProfilesData`
#' message (or an `ExportProfilesServiceRequest`, which has the same layout),
#' as binary protobuf or as OTLP/JSON, gzip-compressed or not; an OTLP/JSON
#' file may hold several messages, one per line (the collector's file
#' exporter). The format is recognised from the content, not the file name.
#'
#' `write_otlp()` writes a profile, v2 or v1, from any source, as an OTLP
#' file: binary protobuf (the default) or OTLP/JSON, gzip-compressed when
#' `path` ends in `.gz`.
#'
#' @details
#' # What maps to what
#'
#' The messages are those of the current `profiles/v1development` schema of
#' `opentelemetry-proto` (releases v1.10.0 and later):
#'
# Rows of a markdown table cannot be wrapped:
# nolint start: line_length_linter.
#' | OTLP | v2 profile |
#' |---|---|
#' | `ResourceProfiles` (`Resource`) | a row of `resources`; its attributes in `resource_attributes` |
#' | `ScopeProfiles` (`InstrumentationScope`) | a row of `scopes`; its attributes in `scope_attributes` |
#' | consecutive `Profile`s of a scope with the same samples | one row of `sources` (`source_type` `"otlp"`), a sample type (`sample_types`) per `Profile` |
#' | `Profile.time_unix_nano`, `duration_nano`, `period_type`, `period` | `sources` columns `time_nanos` (exact text) and `source_timestamp`, `duration_nanos`, `period_type`, `period_unit`, `period` |
#' | `Profile.profile_id`, `dropped_attributes_count`, `original_payload_format`, `original_payload`, `attribute_indices` | `sources` columns `profile_id` (hex), `dropped_attributes_count`, `original_payload_format`, `original_payload` (hex); `source_attributes` |
#' | a `Sample` with n observations (`values` and/or `timestamps_unix_nano`) | n rows of `samples`, each with its values in `sample_values` (1 per timestamp when the sample has timestamps only) |
#' | `Sample.timestamps_unix_nano` | `samples$time`: seconds from the source's start |
#' | `Sample.stack_index` (`Stack`, leaf first) | `sample_locations` (depth 1 is the leaf) |
#' | `Sample.attribute_indices` (`KeyValueAndUnit`) | `sample_labels` |
#' | `Sample.link_index` (`Link`) | `samples$trace_id`, `samples$span_id` (hex) |
#' | `Location` with its `Line`s | a row of `locations` per line, innermost first, linked by `inlined_into` (as for pprof); its attributes in `location_attributes` |
#' | `Function` | a row of `functions` |
#' | `Mapping` | a row of `mappings`; its attributes in `mapping_attributes` |
# nolint end
#'
#' Several `Profile`s of one scope are one source when they follow each other
#' and agree sample by sample (stack, attributes, link, timestamps and number
#' of observations) and in every other field but the sample type: the
#' OpenTelemetry collector's pprof translator writes one `Profile` per pprof
#' sample type, and such a file reads as the pprof file did. Any other
#' `Profile` is a source of its own (an eBPF profiler capture has one per
#' process and sample type).
#'
#' Attribute values keep their kind (see [profile_v2] for the columns): a
#' string reads into `value`, an integer into `num`, as pprof labels do, and
#' the other kinds (`bool`, `double`, `bytes`, `array`, `kvlist`, no value, and
#' integers beyond 2^53) are named by the `kind` column; the unit of any
#' attribute is `num_unit`.
#'
#' `samples$time` counts seconds from the source's `time_unix_nano`, or, when
#' that is unset or later than a timestamp of the source, from its first
#' timestamp, which `sources$time_origin_nanos` then records. `write_otlp()`
#' turns the times back into timestamps exactly to the nanosecond for sources
#' read from OTLP (while they are within 2^52 ns, 52 days, of their start).
#'
#' The pprof fields that OTLP has no field for are attributes, under the keys
#' the OpenTelemetry collector's pprof translator and the semantic
#' conventions use: a mapping's `build_id` is `process.executable.build_id.gnu`
#' and its flags `pprof.mapping.has_functions` (`has_filenames`,
#' `has_line_numbers`, `has_inline_frames`); a location's `is_folded` is
#' `pprof.location.is_folded`; `drop_frames`, `keep_frames`, `doc_url` and
#' comments are `pprof.profile.drop_frames`, `pprof.profile.keep_frames`,
#' `pprof.profile.doc_url` and `pprof.profile.comment.0`, `.1`, ... on each
#' `Profile`; `default_sample_type` is `pprof.scope.default_sample_type` on
#' the scope. So `read_pprof() |> write_otlp()` and `read_otlp() |>
#' write_pprof()` carry them across. Fields of v2 sources that OTLP has no
#' place for travel as `Profile` attributes too: `r.profile.source_type`,
#' `r.profile.source_uri` (for sources not read from OTLP),
#' `r.profile.rprof_header`, `r.profile.diff_base`, `r.profile.source_label`, and
#' `r.profile.source_timestamp` (a start time known only as a double); a file
#' written by `write_otlp()` reads back with the sources it was written from.
#' The sources of a recording of parallel code ([profile_record()], one per R
#' process) are written each into a resource of its own process, whose
#' attributes are OpenTelemetry's `process.pid` and `host.name` and
#' `r.profile.process_role`; the reader fills `process_id`, `host_name` and
#' `process_role` of `sources` from those resource attributes (of any
#' producer) and keeps them as resource attributes too. The recording's
#' tables `tasks` and `waits` are not written (a database or [saveRDS()]
#' keeps them).
#' (A source's Profiles are the consecutive Profiles of a scope that agree in
#' every field but their sample type; where two sources alike follow each
#' other with other sample types, the second's Profiles carry
#' `r.profile.source_index`, its position in the scope, which the reader
#' drops, so that they stay two sources.)
#'
#' # Reading
#'
#' Indices are taken as the file gives them: index 0 refers to entry 0 of its
#' table, which the format requires to be the table's zero value (`""`,
#' `Function{}`, ...). Where it is (as in every file a current writer
#' makes), a `mapping_index`, `link_index` or `unit_strindex` of 0 means none,
#' as the format defines them; where it is not (the OpenTelemetry collector's
#' golden test file has a mapping and a string there), index 0 means entry 0,
#' as the collector reads it. Entries of the dictionary become rows whose ids
#' are their indices (entry 0, when it is referred to, gets the id after the
#' last index). Every index is checked, also in entries no sample uses: a
#' negative one, or one past the end of its table, is an error of class
#' `profile_error_invalid` naming the table and the index. So is a sample with
#' neither values nor timestamps, or with different numbers of them. Strings
#' must be UTF-8, as protobuf requires of them (the collector refuses such a
#' file too): another string is a `profile_error_format`.
#'
#' The profiles signal changed its messages between releases, several times
#' reusing field numbers: a file of an older draft (v1.3's `v1experimental`
#' profiles, v1.4 and v1.5's lookup tables inside each `Profile`, v1.6 and
#' v1.7's location ranges, v1.8 and v1.9's `Sample` whose values are at field
#' 2) can decode against the current messages while meaning something else.
#' `read_otlp()` recognises them (by fields of the wrong kind at the numbers a
#' draft used, fields the current messages do not have, and in JSON the names
#' of older fields) and refuses them with an error of class
#' `profile_error_unsupported` that names the draft. A v1.8 or v1.9 file
#' whose samples have neither attributes nor links is, byte for byte, also a
#' current file, and is read as one.
#'
#' JSON that is no `ProfilesData` message is refused with an error of class
#' `profile_error_format` naming the members it has: a top level that is no
#' object (`[]`), or objects none of which has a member of `ProfilesData`
#' (`resourceProfiles`, `dictionary`), such as `{}`, `{"foo":1}` or
#' Pyroscope's query results. OTLP/JSON without samples
#' (`{"resourceProfiles":[]}`) is a profile without samples.
#'
#' Memory is bounded as for pprof (see [profile_error]): the file is refused
#' before it is read when larger than `max_size`, data that hold neither
#' OTLP/JSON nor OTLP protobuf in their first 64 KiB are refused after
#' inflating no more, and every list and string is counted before it is
#' allocated and charged to the option `profile.max_memory`. Compressed data
#' are counted as they are inflated (each sample, packed number and string at
#' the size it takes once decoded), so a decompression bomb is refused once
#' that passes the limit, not after being inflated whole.
#'
#' With `version = "1.0"`, the result is a v1 object (see [profile_v1]) of
#' the `samples`/`count` values (each location's outermost line), as for
#' pprof files; a profile without them (off-CPU time, allocations) is an error
#' of class `profile_error_unsupported`.
#'
#' # Writing
#'
#' One `ProfilesData` with one dictionary: entry 0 of every table is its zero
#' value; strings, attributes, stacks and links are stored once; every row of
#' `functions` and `mappings` is an entry, every chain of `locations` rows
#' linked by `inlined_into` one `Location`. Sources are grouped into the
#' scopes and resources they were read from (sources from elsewhere go into a
#' scope named `profile`), and each source has one `Profile` per sample type,
#' all with the same samples: samples of equal identity (stack, labels, link,
#' and whether they have a time) are one `Sample` whose values and timestamps
#' list each observation. A `Profile` records timestamps only (each counting
#' 1) when `sample_types$timestamps_only` says so, or, where it is `NA`, when
#' its unit is `count`, every value is 1 and every sample has a time (Rprof
#' ticks). Values are written as 64-bit integers (rounded); a sample without
#' a value of one of its source's types is written with 0. Every sample type
#' is written, the heap gauges of Rprof memory profiles too (as their own
#' `Profile`s; unlike pprof, OTLP keeps each observation).
#'
#' The file is written to a temporary file next to `path` and renamed when
#' complete, so an error never leaves a partly written file.
#'
#' @inheritParams read_pprof
#' @param format `"protobuf"` (binary) or `"json"` (OTLP/JSON, one message on
#'   one line).
#' @return `read_otlp()`: a v2 profile (a `dm`), or a v1 `profile_data` object
#'   with `version = "1.0"`. `write_otlp()`: `x`, invisibly.
#' @seealso [read_pprof()], [read_rprof()]; [profile_v2] for the tables.
#' @export
#' @examples
#' # An R profile sent to OTLP, and read back
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' path <- tempfile(fileext = ".pb")
#' write_otlp(x, path)
#' y <- read_otlp(path)
#' y
#' dm::dm_get_tables(y)$sample_types
#'
#' # OTLP/JSON, as the OpenTelemetry collector's file exporter writes it
#' json <- tempfile(fileext = ".json")
#' write_otlp(x, json, format = "json")
#' substr(readLines(json, warn = FALSE), 1, 120)
#' profile_summary(read_otlp(json))
#'
#' # A Go CPU profile with labels: pprof fields travel as attributes
#' go <- read_pprof(system.file("samples/pprof/cpu.pb.gz", package = "profile"))
#' write_otlp(go, path)
#' head(dm::dm_get_tables(read_otlp(path))$sample_labels)
#'
#' # ... and back to pprof, for go tool pprof
#' write_pprof(read_otlp(path), tempfile(fileext = ".pb.gz"))
read_otlp <- function(path, ..., version = "2.0", source_uri = path,
                      max_size = default_max_size()) {
  with_profile_errors("internal", "Can't read the OTLP file {.file {path}}.", path = path, {
    check_dots_unused(...)
    path <- check_file_path(path)
    version <- check_version_arg(version)
    source_uri <- check_source_uri(source_uri)
    max_size <- check_max_size(max_size)
    max_memory <- default_max_memory()
    check_readable_file(path)
    bundle <- rust_value(
      ffi_otlp_read(native_path(path), source_uri, max_size, max_memory, compact_columns_option()),
      "Can't read the OTLP file {.file {path}}.",
      path = path
    )
    if (version == "1.0") {
      v1_from_v2_tables(decode_bundle(bundle), counts = otlp_v1_counts, frames = pprof_v1_frames)
    } else {
      dm_from_bundle(bundle)
    }
  })
}

#' @rdname read_otlp
#' @export
write_otlp <- function(x, path, format = c("protobuf", "json")) {
  message <- "Can't write {.arg x} as the OTLP file {.file {path}}."
  with_profile_errors("invalid", message, path = path, {
    path <- check_file_path(path)
    format <- rlang::arg_match(format)
    if (inherits(x, "profile_data")) {
      validate_v1(x)
      # one sample per v1 row, with its value (v1 rows are aggregated already)
      tables <- v2_tables_from_v1(x, repeat_rows = FALSE)
    } else {
      tables <- check_v2_tables(profile_for_writing(x))
    }
    gzip <- grepl("\\.gz$", path, ignore.case = TRUE)
    rust_value(
      ffi_otlp_write(bundle_from_tables(tables), native_path(path), format, gzip),
      "Can't write the OTLP file {.file {path}}.",
      path = path
    )
  })
  invisible(x)
}

# v1 holds sample counts: every sample must have a samples/count value.
otlp_v1_counts <- function(tables, call) {
  sv <- tables$sample_values
  counted <- sv$sample_id[sv$type == "samples" & sv$unit == "count"]
  if (!all(tables$samples$sample_id %in% counted)) {
    abort_without_v1_counts(
      paste(
        "Version 1.0 holds only sample counts:",
        "every sample needs a value of type {.val samples/count}."
      ),
      types = unique(paste0(sv$type, "/", sv$unit)),
      hint = "Read it with {.code version = \"2.0\"}, which keeps every sample type.",
      call = call
    )
  }
  v1_counts_of_samples(tables, call)
}
