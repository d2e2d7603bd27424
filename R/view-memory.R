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
# NULL when the profile has no heap sizes (not an Rprof memory profile), is a
# diff, or is read from a database (its samples come grouped, not as ticks).
view_heap_lines <- function(parts, frames, line_key, n_line_keys) {
  values <- parts$values
  stack <- parts$stack
  in_database <- is_db_table(values) || is_db_stacks(values) || !is.null(parts$samples_db)
  is_diff <- any(parts$sources[["diff_base"]] %in% TRUE)
  if (in_database || !is.data.frame(stack) || is_diff) {
    return(NULL)
  }
  gauge <- values$type %in% heap_gauge_types
  if (!any(gauge)) {
    return(NULL)
  }
  samples <- parts$samples
  heap <- rowsum(values$value[gauge], values$sample_id[gauge], reorder = FALSE)
  tick_heap <- heap[match(samples$sample_id, as.integer(rownames(heap))), 1L]
  # the ticks with a heap size and a frame, in the order they were taken
  ticks <- which(!is.na(tick_heap) & samples$sample_id %in% stack$sample_id)
  time <- samples[["time"]]
  time <- if (is.double(time)) time[ticks] else rep(NA_real_, length(ticks))
  ticks <- ticks[order(samples$source_id[ticks], time, ticks, method = "radix")]
  source <- samples$source_id[ticks]
  change <- c(0, diff(tick_heap[ticks]))
  change[c(TRUE, source[-1L] != source[-length(source)])] <- 0
  # each frame with a line credits its tick's change to the line
  tick <- match(stack$sample_id, samples$sample_id[ticks])
  key <- line_key[match(stack$location_id, frames$location_id)]
  credited <- !is.na(tick) & !is.na(key) & key > 0L
  per_line <- function(amount) {
    out <- numeric(n_line_keys)
    sums <- rowsum(amount[tick[credited]], key[credited])
    out[as.integer(rownames(sums))] <- sums[, 1L]
    out
  }
  list(allocated = per_line(pmax(change, 0)), released = per_line(pmax(-change, 0)))
}

# Whether a source of the profile is of R's allocation profiler (Rprofmem):
# its `alloc_space` is exact bytes per function, without lines.
has_rprofmem_source <- function(parts) {
  any(parts$sources[["source_type"]] %in% "rprofmem")
}

# The view's JSON object with the memory of the source panel added.
with_source_memory <- function(json, heap_lines, exact_alloc, call = rlang::caller_env()) {
  fields <- character()
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
