# The memory columns of the view's source panel (see ?profile_view): the heap
# growth and shrinkage per line of an Rprof memory profile, as profvis shows
# them, and whether the profile has a source of R's allocation profiler
# (exact bytes per function). Computed here once and sent with the view's data
# (one number per line key), as the comparison is (view-compare.R).

# The vector heaps whose changes profvis shows (`memalloc` in
# profvis:::parse_rprof(): the small and the large vector heap; not the node
# heap).
heap_gauge_types <- c("small_vector_heap", "large_vector_heap")

# Per line key (1..n, as view_lines() numbers them): the bytes the vector heaps
# grew by (`allocated`) and shrank by (`released`, positive) between
# consecutive ticks of a source, credited to the lines of the later tick's
# frames. The rule is profvis's (0.3.7): a tick's change is its heap (small +
# large vector heap) minus that of the previous tick of the source with a
# stack (ticks without a frame are skipped; the first tick's change is 0);
# growth and shrinkage are kept apart per tick; each frame of the tick with a
# line credits its line, so a line twice on a stack (recursion) counts twice.
# Computed in Rust (src/rust/core/src/formats/view/heap.rs), which walks every
# frame of every sample. NULL when the profile has no heap sizes (not an Rprof
# memory profile) or is a diff.
view_heap_lines <- function(parts, frames, line_key, n_line_keys, call = rlang::caller_env()) {
  if (any(parts$sources[["diff_base"]] %in% TRUE)) {
    return(NULL)
  }
  input <- if (is.null(parts$samples_db)) heap_input(parts) else db_heap_input(parts)
  if (is.null(input)) {
    return(NULL)
  }
  input <- c(input, list(
    heap_types = heap_gauge_types, locations = frames$location_id,
    location_line_key = line_key, n_line_keys = n_line_keys
  ))
  rust_value(ffi_view_heap_lines(input), "Can't compute the heap changes per line.", call = call)
}

# The columns of an in-memory profile that ffi_view_heap_lines() reads: the
# samples, the values of every type (those of `heap_types` count) and the
# stack rows.
heap_input <- function(parts) {
  samples <- parts$samples
  time <- samples[["time"]]
  values <- parts$values
  list(
    samples = samples$sample_id, sample_source = samples$source_id,
    # all NA (no time) is the same as none
    sample_time = if (is.double(time)) time,
    value_sample_id = values$sample_id, value_type = as.character(values$type),
    value = values$value,
    stack_sample_id = parts$stack$sample_id, stack_location_id = parts$stack$location_id
  )
}

# The same for a database-backed profile, from db_heap_ticks(): each tick's
# heap is already summed, one value of a heap type per tick.
db_heap_input <- function(parts) {
  ticks <- db_heap_ticks(parts)
  if (is.null(ticks)) {
    return(NULL)
  }
  samples <- ticks$samples
  list(
    samples = samples$sample_id, sample_source = samples$source_id, sample_time = samples$time,
    value_sample_id = samples$sample_id,
    value_type = rep_len(heap_gauge_types[[1L]], length(samples$sample_id)),
    value = samples$heap,
    stack_sample_id = ticks$stack$sample_id, stack_location_id = ticks$stack$location_id
  )
}

# The same for a database-backed profile: each tick's heap and stack (as
# db_samples_in_memory() reads stacks), read from the database.
db_heap_ticks <- function(parts) {
  views <- parts$db_views
  con <- views$sample_values$con
  samples <- parts$samples_db
  time <- if ("time" %in% samples$columns) "\"m\".\"time\"" else "NULL"
  ticks <- db_query(con, paste(
    "SELECT \"m\".\"sample_id\", \"m\".\"source_id\", {time} AS \"time\", \"s\".\"stack\",",
    "SUM(\"v\".\"value\") AS \"heap\" FROM {values} AS \"v\"",
    "INNER JOIN {samples} AS \"m\" ON \"v\".\"sample_id\" = \"m\".\"sample_id\"",
    "LEFT JOIN ({stacks}) AS \"s\" ON \"v\".\"sample_id\" = \"s\".\"sample_id\"",
    "WHERE \"v\".\"type\" IN ({types})",
    "GROUP BY \"m\".\"sample_id\", \"m\".\"source_id\", {time}, \"s\".\"stack\""
  ),
  time = time, values = views$sample_values, samples = samples,
  stacks = db_stack_signatures(views$sample_locations),
  types = paste(sql_string(con, heap_gauge_types), collapse = ", ")
  )
  if (!nrow(ticks)) {
    return(NULL)
  }
  sample_id <- as_column_type(ticks$sample_id, "integer")
  stack <- stack_rows_of_signatures(ticks$stack)
  stack$sample_id <- sample_id[stack$sample_id]
  list(
    samples = list(
      sample_id = sample_id, source_id = as_column_type(ticks$source_id, "integer"),
      time = as.double(ticks$time), heap = as.double(ticks$heap)
    ),
    stack = stack
  )
}

# Whether a source of the profile is of R's allocation profiler (Rprofmem):
# its `alloc_space` is exact bytes per function, without lines.
has_rprofmem_source <- function(parts) {
  any(parts$sources[["source_type"]] %in% "rprofmem")
}

# The view's JSON object with the memory of the source panel (and the
# waits of the time order, a JSON member: see view_waits_json()) added.
with_source_memory <- function(json, heap_lines, exact_alloc, waits = NULL,
                               call = rlang::caller_env()) {
  fields <- waits
  if (!is.null(heap_lines)) {
    fields <- c(fields, paste0(
      "\"heap_lines\":{\"allocated\":[", paste(json_number(heap_lines$allocated), collapse = ","),
      "],\"released\":[", paste(json_number(heap_lines$released), collapse = ","), "]}"
    ))
  }
  if (exact_alloc) fields <- c(fields, "\"exact_alloc\":true")
  if (!length(fields)) {
    return(json)
  }
  n <- nchar(json)
  if (substr(json, n, n) != "}") {
    abort_profile("internal", "The view's data is not a JSON object.", call = call)
  }
  paste0(substr(json, 1L, n - 1L), ",", paste(fields, collapse = ","), "}")
}
