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
# NULL when the profile has no heap sizes (not an Rprof memory profile) or is
# a diff.
view_heap_lines <- function(parts, frames, line_key, n_line_keys) {
  if (any(parts$sources[["diff_base"]] %in% TRUE)) {
    return(NULL)
  }
  ticks <- if (is.null(parts$samples_db)) heap_ticks(parts) else db_heap_ticks(parts)
  if (is.null(ticks)) {
    return(NULL)
  }
  samples <- ticks$samples
  stack <- ticks$stack
  # the ticks with a frame, in the order they were taken
  of_row <- match_ids(stack$sample_id, samples$sample_id)
  ticks <- which(tabulate(of_row, length(samples$sample_id)) > 0L)
  time <- samples$time[ticks]
  ticks <- ticks[order(samples$source_id[ticks], time, samples$sample_id[ticks], method = "radix")]
  source <- samples$source_id[ticks]
  change <- c(0, diff(samples$heap[ticks]))
  change[c(TRUE, source[-1L] != source[-length(source)])] <- 0
  # each frame with a line credits its tick's change to the line
  tick_of_sample <- rep(NA_integer_, length(samples$sample_id))
  tick_of_sample[ticks] <- seq_along(ticks)
  tick <- tick_of_sample[of_row]
  key <- line_key[match_ids(stack$location_id, frames$location_id)]
  credited <- !is.na(tick) & !is.na(key) & key > 0L
  # (growth and shrinkage summed in one pass over the frames)
  amount <- cbind(pmax(change, 0), pmax(-change, 0))
  sums <- rowsum(amount[tick[credited], , drop = FALSE], key[credited])
  out <- matrix(0, n_line_keys, 2L)
  out[as.integer(rownames(sums)), ] <- sums
  list(allocated = out[, 1L], released = out[, 2L])
}

# The ticks of an in-memory profile with their vector heap: `samples`
# (sample_id, source_id, time, heap) and `stack` (sample_id, location_id);
# NULL without heap sizes.
heap_ticks <- function(parts) {
  values <- parts$values
  gauge <- values$type %in% heap_gauge_types
  if (!any(gauge)) {
    return(NULL)
  }
  samples <- parts$samples
  heap <- rowsum(values$value[gauge], values$sample_id[gauge], reorder = FALSE)
  tick_heap <- heap[match_ids(samples$sample_id, as.integer(rownames(heap))), 1L]
  time <- samples[["time"]]
  has <- !is.na(tick_heap)
  list(
    samples = list(
      sample_id = samples$sample_id[has], source_id = samples$source_id[has],
      time = if (is.double(time)) time[has] else rep(NA_real_, sum(has)), heap = tick_heap[has]
    ),
    stack = parts$stack
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

# match(x, table) for integer ids unique in `table` (sample and location
# ids), through a direct index where they are positive and dense (R's hashed
# match() takes seconds on 10^7 sorted ids); match() otherwise.
match_ids <- function(x, table) {
  if (!is.integer(x) || !dense_ids(table)) {
    return(match(x, table))
  }
  index <- integer(max(table))
  index[table] <- seq_along(table)
  x[x < 1L] <- NA_integer_
  out <- index[x]
  out[out == 0L] <- NA_integer_
  out
}

# Whether `ids` are distinct positive integers, at most about four times as
# large as their number (an index of them is small).
dense_ids <- function(ids) {
  n <- length(ids)
  if (!is.integer(ids) || !n || anyNA(ids)) {
    return(FALSE)
  }
  min(ids) >= 1L && max(ids) <= 4 * n + 1024 && !anyDuplicated(ids)
}
