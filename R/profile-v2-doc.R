#' The v2 profile data format
#'
#' @description
#' A v2 profile is a [dm::dm()] object (see "The class") whose tables hold raw
#' samples: one row per record
#' of the source format (an Rprof timer tick, a pprof `Sample` message). Nothing
#' is aggregated on reading; writers aggregate. [validate_profile()] checks every
#' rule below.
#'
#' # Required tables, in this order
#'
# Rows of a markdown table cannot be wrapped:
# nolint start: line_length_linter.
#' | table | columns | keys |
#' |---|---|---|
#' | `meta` | `key` (chr), `value` (chr) | PK `key`; the row `version` = `"2.0"` is required |
#' | `sources` | `source_id` (int), `source_type` (chr), `source_uri` (chr), `source_timestamp` (dbl, seconds since the epoch, UTC; `NA` unknown) | PK `source_id` |
#' | `samples` | `sample_id` (int), `source_id` (int) | PK `sample_id`; FK `source_id` |
#' | `sample_values` | `sample_id` (int), `type` (chr), `unit` (chr), `value` (dbl) | FK `sample_id`; unique (`sample_id`, `type`) |
#' | `sample_locations` | `sample_id` (int), `depth` (int, 1 = innermost), `location_id` (int) | FKs `sample_id`, `location_id`; unique (`sample_id`, `depth`) |
#' | `locations` | `location_id` (int), `function_id` (int, `NA` allowed), `line` (int, 0 unknown, `NA` allowed) | PK `location_id`; FK `function_id` |
#' | `functions` | `function_id` (int), `name`, `system_name`, `filename` (chr), `start_line` (int) | PK `function_id` |
# nolint end
#'
#' Ids are positive integers. The depths of a sample run 1..n without gaps.
#' `source_type` is one of `"rprof"`, `"pprof"`, `"otlp"` (OpenTelemetry
#' profiles), `"v1"` (converted from a v1 object), `"folded"` or `"manual"`.
#' `NA` is not allowed in ids, `source_type`, and the `type`, `unit` and
#' `value` of sample values.
#'
#' # The class
#'
#' The readers, the verbs, [combine_profiles()], [new_profile_v2()],
#' [profile_record()] and [profile_db()] return a `dm` of class
#' `c("profile_v2", "dm")`, which prints what the profile holds: its sources,
#' samples, sample types with their totals, and top functions
#' ([print.profile_v2()]). What makes a profile is its tables and keys, not
#' the class: dm's own verbs (`dm::dm_filter()`, `dm::dm_select_tbl()`,
#' `dm::dm_zoom_to()`, `[`) give back a plain `dm`, which every function of
#' this package takes as the same profile (it prints as dm prints a `dm`).
#' Until 2.2 a profile was a plain `dm`, without the subclass.
#'
#' # Sample values
#'
#' Time samples from Rprof have `type = "samples"`, `unit = "count"`, `value = 1`.
#' pprof sample types keep their own names and units (`cpu`/`nanoseconds`,
#' `alloc_space`/`bytes`, ...). Rprof memory profiling adds, per sample:
#'
# Rows of a markdown table cannot be wrapped:
# nolint start: line_length_linter.
#' | type | unit | value |
#' |---|---|---|
#' | `small_vector_heap` | bytes | small vector heap at the tick (a gauge) |
#' | `large_vector_heap` | bytes | large vector heap at the tick (a gauge) |
#' | `node_heap` | bytes | node heap at the tick (a gauge) |
#' | `duplications` | count | calls to duplicate since the previous tick |
#' | `alloc_size` | bytes | growth of the three heaps since the previous tick of the same source (0 for the first) |
# nolint end
#'
#' Gauges are levels, not amounts: summing them over samples means nothing, so
#' writers never present them as summable values. `alloc_size` summed per
#' function gives what `utils::summaryRprof(memory = "both")` reports as
#' `mem.total`.
#'
#' Where no type is asked for, the summaries ([profile_summary()],
#' [profile_flamegraph()] and [write_folded()]) look at the type `go tool pprof`
#' shows: the sources' `default_sample_type` (the first source that has one,
#' among the types that can be summed), else the last type the profile declares
#' that can be summed.
#' Rprof sources have `default_sample_type = "samples"`.
#'
#' # The top level (Rprof)
#'
#' With line profiling, R writes after each frame the line that made the call
#' into it, so the line after the outermost frame is that of the top-level
#' code, when that code has source references (code typed at the console or run
#' with `R -f`, with `options(keep.source = TRUE)`): `1#3 "f" 1#10 "g" 2#20`
#' means `g` was called from line 20 of file 2. Such a reference becomes the
#' outermost frame of its sample: a location at that line of a function named
#' `"<top level>"`, whose `system_name` is `""` (R wrote no name) and whose
#' `filename` is the file of the reference (`""` for the console). A tick of
#' top-level code that runs without any frame (a byte-compiled loop) is this
#' frame alone. Summaries, flame graphs and the pprof writer show it as a frame
#' (`utils::summaryRprof(lines = "show")` counts its line as well); the Rprof
#' writer writes it back as the reference alone.
#'
#' R (4.2 and earlier) stops writing the frames of a tick once its line has 10
#' 000 bytes, so the line of a deep stack can end in the line reference of a
#' frame whose caller is missing. A reference at the end of a line that long
#' is therefore read as cut, with the warning for cut lines, and makes no top
#' level (a complete line of that length, whose outermost frame was the last R
#' could write, reads the same way). Version 1.0 objects have no top level:
#' profile 1.0.x dropped a reference at the end of a line, with that warning,
#' and `read_rprof(version = "1.0")` does the same.
#'
#' # Extension tables and columns
#'
#' Readers also write what a format carries beyond the seven tables. Extension
#' tables follow the required ones; extension columns follow the required columns.
#' Both are optional in input (absent ones read as `NA`), and their keys are
#' validated too. Two foreign keys are checked by [validate_profile()] but not
#' recorded in the `dm`, because dm's graph functions (such as
#' [dm::dm_filter()]) need the keys to form a tree: `locations.inlined_into`
#' (the table refers to itself) and `mappings.source_id` (it would close a
#' cycle through `samples` and `locations`).
#'
# Rows of a markdown table cannot be wrapped:
# nolint start: line_length_linter.
#' | table | columns | keys |
#' |---|---|---|
#' | `sample_types` | `source_id`, `type`, `unit`: the sample types a source declares, in its order (kept even when it has no samples) | FK `source_id`; unique (`source_id`, `type`) |
#' | `sample_labels` | `sample_id`, `key`, `value` (chr), `num` (dbl), `num_unit` (chr): pprof labels, a string `value` or a number `num` | FK `sample_id` |
#' | `mappings` | `mapping_id`, `source_id`, `memory_start`, `memory_limit`, `file_offset` (chr, `"0x..."`), `filename`, `build_id` (chr), `has_functions`, `has_filenames`, `has_line_numbers`, `has_inline_frames` (lgl) | PK `mapping_id`; FK `source_id` |
#' | `source_comments` | `source_id`, `comment`: pprof comments, in order | FK `source_id` |
#' | `source_lines` | `source_id`, `filename` (chr), `line` (int, from 1), `text` (chr): the text of the source files that frames name, one row per line | FK `source_id` |
#' | `tasks` | `source_id`, `start_time`, `end_time` (dbl, seconds since the epoch), `status` (chr: `"ok"`, `"error"`, `"unfinished"`): the tasks of [profile_task()] in a recording of parallel code, each with the process (source) that ran it | FK `source_id` |
#' | `waits` | `source_id`, `start_time`, `end_time` (dbl, seconds since the epoch), `cpu_time` (dbl, seconds): the waits of the main process of a recording of parallel code, stretches in which it used no CPU time, each with the CPU time its samples had reached when it began (which places it among them: see [profile_view()]) | FK `source_id` |
#' | `resources` | `resource_id`, `schema_url` (chr), `dropped_attributes_count` (int), `entity_refs` (chr: OTLP/JSON text, `NA` for none): an OTLP `ResourceProfiles` with its `Resource` | PK `resource_id` |
#' | `scopes` | `scope_id`, `resource_id`, `name`, `version`, `schema_url` (chr), `dropped_attributes_count` (int): an OTLP `ScopeProfiles` with its `InstrumentationScope` | PK `scope_id`; FK `resource_id` |
#' | `resource_attributes`, `scope_attributes`, `source_attributes`, `mapping_attributes`, `location_attributes` | the id of the row the attribute belongs to (`resource_id`, `scope_id`, `source_id`, `mapping_id`, `location_id`), then the columns of `sample_labels`: OTLP attributes | FK to their table |
#'
#' `tasks` and `waits` are in recordings of parallel code only ([profile_record()];
#' readers leave them out). The last seven tables are those of OpenTelemetry profiles: [read_otlp()]
#' writes them, readers of other formats leave them out (a profile that has
#' them keeps them through [combine_profiles()] and the verbs).
#'
#' `sample_labels` and the attribute tables hold an attribute value of any
#' kind: a string in `value`, an integer in `num` (as pprof labels are, `kind`
#' `NA`), or a value of another kind that `kind` names: `"int"` (an integer
#' beyond 2^53, exact as text in `value`, rounded in `num`), `"bool"`
#' (`value` `"true"` or `"false"`), `"double"` (`num`), `"bytes"` (`value` in
#' lower-case hex), `"array"` and `"kvlist"` (`value` the OTLP/JSON text of the
#' value, such as `{"arrayValue":{"values":[{"intValue":"1"}]}}`) and
#' `"empty"` (no value). `num_unit` is the unit of an attribute of any kind.
# nolint end
#'
#' `source_lines` keeps the code the profile ran, for the source panel of
#' [profile_view()]: [read_rprof()], [read_pprof()] and [profile_record()]
#' read the files that the functions' `filename` names while they exist
#' (argument `source_text`; relative names are looked up in the working
#' directory, as R resolved them when it recorded them), as lines of the
#' first source of the profile; [profile_record()] adds the code it ran under
#' the file name `<expr:HASH>` (`HASH` from the code's text). Only regular
#' text files with a source-code extension are read, up to 1 MiB each and
#' 16 MiB in all. Its lines belong to a source (a file changes between
#' runs): [combine_profiles()] gives them the source's new id. No file format
#' carries it: the writers leave it out.
#'
#' Extension columns of `sources`: `period_type`, `period_unit` (chr), `period`,
#' `duration_nanos` (dbl), `time_nanos` (chr: the exact pprof `time_nanos`, which
#' a double cannot hold), `default_sample_type`, `doc_url`, `drop_frames`,
#' `keep_frames` (chr) from pprof, and `rprof_header` (chr), the header line R
#' wrote. For Rprof sources `period_type` is `"cpu"`, `period_unit`
#' `"nanoseconds"` and `period` the sampling interval; each header of a file
#' written with `Rprof(append = TRUE)` starts a new source. `diff_base` (lgl)
#' marks the sources of a difference ([profile_diff()]): `TRUE` for those of
#' the base, whose values are negated, `FALSE` for the others, `NA` outside a
#' difference. From OpenTelemetry profiles ([read_otlp()]): `scope_id` (int, FK
#' to `scopes`), `profile_id` (chr, hex), `dropped_attributes_count` (int),
#' `original_payload_format` (chr), `original_payload` (chr, hex) and
#' `time_origin_nanos` (chr: the instant `samples$time` counts from, in
#' nanoseconds since the epoch, where it is not `time_nanos`). `source_label`
#' (chr) is a name given to the source by its maker ([profile_record()]'s
#' `label`), `NA` if none. `process_id` (int), `host_name` (chr) and
#' `process_role` (chr, `"main"` or `"worker"`) say which R process a
#' recording's source is ([profile_record()], "Parallel code").
#'
#' Extension column of `samples`: `time` (dbl), the time of the sample in
#' seconds from the start of its source, or `NA` where the format has none
#' (pprof, folded stacks, v1 objects). For Rprof, tick `i` of a source is at
#' `(i - 1) * interval` (the header's `sample.interval`); the Rprof writer
#' writes the samples in order, which is their time. It must be `NA` or a finite
#' number `>= 0`. OpenTelemetry profiles give it from the samples' timestamps.
#' Also from OpenTelemetry profiles: `trace_id` and `span_id` (chr), the trace
#' and span a sample is linked to, in hex (32 and 16 digits).
#'
#' Extension column of `sample_types`: `timestamps_only` (lgl), whether the
#' OpenTelemetry Profile of that type records its observations by their
#' timestamps only (each counting 1); `NA` where [write_otlp()] decides (see
#' there).
#'
#' Extension columns of `locations`: `address` (chr, `"0x..."`), `mapping_id`
#' (int, FK to `mappings`), `is_folded` (lgl), `column` (int) and `inlined_into`
#' (int, FK to `locations`). A pprof location with inlined calls holds several
#' lines; each becomes its own row (a frame of its own in the stacks, innermost
#' first), and `inlined_into` links a row to the next line of the same pprof
#' location so that writers can put them back together.
#'
#' A foreign key into an extension table is checked only when the profile has
#' that table: the seven required tables of a pprof profile make a profile
#' whose `locations$mapping_id` names mappings it does not have. Such a mapping
#' id means no mapping, as a mapping id that names no mapping does in a pprof
#' file: [write_pprof()] writes those locations without mapping, and
#' [combine_profiles()] gives them `NA`.
#'
#' # Strings
#'
#' Strings are UTF-8. Bytes that are not valid UTF-8 in a file are replaced by
#' `<xx>` (their hexadecimal value in lower case, as `iconv(sub = "byte")`
#' writes them), and a NUL byte (which an R string cannot hold) by `<00>`. A
#' latin1 frame name `"caf\xe9"` in an Rprof file thus reads as `"caf<e9>"`.
#' Strings given to the writers, [validate_profile()] and [combine_profiles()]
#' are converted to UTF-8 if they are marked in another encoding, and bytes that
#' are not valid UTF-8 (in strings marked `"bytes"` or not marked) become `<xx>`
#' by the same rule. See [profile_error] for the errors and limits.
#'
#' # Compact columns
#'
#' The readers and [combine_profiles()] return some columns of the long tables
#' as *compact columns* (ALTREP vectors) that keep the column's shape instead of
#' a value per row: `sample_id` of `sample_locations`, `sample_values` and
#' `sample_labels` and `source_id` of `samples` as runs of equal values,
#' `depth` as positions along those runs, `time` of `samples` (Rprof) as steps
#' of each source's interval along the runs of `source_id`, `type` and `unit`
#' of `sample_values` as one pattern repeated per sample, and id columns that
#' are `1..n` as nothing at all. The character columns of `sample_labels` that
#' hold one value in every row are that value repeated. The per-sample columns
#' of a difference ([profile_diff()]) are those of `x` itself followed by the
#' base's rows: the difference shares `x`'s memory until one of them is
#' modified. They hold the same values as ordinary vectors and work
#' wherever those do; R expands one (once) only where it needs all its values
#' in memory, the functions of this package read them without expanding them,
#' and [saveRDS()] writes ordinary vectors.
#'
#' Set the option `profile.compact` to `FALSE` (`options(profile.compact =
#' FALSE)`) to get ordinary vectors everywhere, for instance when debugging or
#' when other code needs them; the default is `TRUE`.
#'
#' @name profile_v2
#' @seealso [new_profile_v2()], [validate_profile()], [profile_v2_from_v1()]
#' @examples
#' x <- read_rprof(system.file("samples/rprof/memory.out", package = "profile"))
#' x
#' dm::dm_get_tables(x)$sample_values
#' if (rlang::is_installed("DiagrammeR")) dm::dm_draw(x)
#'
#' # The same values in ordinary vectors
#' old <- options(profile.compact = FALSE)
#' y <- read_rprof(system.file("samples/rprof/memory.out", package = "profile"))
#' options(old)
#' identical(dm::dm_get_tables(x), dm::dm_get_tables(y))
NULL
