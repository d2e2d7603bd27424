# The view's heap change per line and each function's defining file as R
# computed them before they moved to Rust (profile 2.2's view_heap_lines() and
# defining_files(), kept only as the reference test-view-memory.R and
# test-view-source.R compare the Rust results with).

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
reference_heap_lines <- function(parts, frames, line_key, n_line_keys) {
  if (any(parts$sources[["diff_base"]] %in% TRUE)) {
    return(NULL)
  }
  ticks <- if (is.null(parts$samples_db)) reference_heap_ticks(parts) else db_heap_ticks(parts)
  if (is.null(ticks)) {
    return(NULL)
  }
  samples <- ticks$samples
  stack <- ticks$stack
  # the ticks with a frame, in the order they were taken
  of_row <- reference_match_ids(stack$sample_id, samples$sample_id)
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
  key <- line_key[reference_match_ids(stack$location_id, frames$location_id)]
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
reference_heap_ticks <- function(parts) {
  values <- parts$values
  gauge <- values$type %in% heap_gauge_types
  if (!any(gauge)) {
    return(NULL)
  }
  samples <- parts$samples
  heap <- rowsum(values$value[gauge], values$sample_id[gauge], reorder = FALSE)
  tick_heap <- heap[reference_match_ids(samples$sample_id, as.integer(rownames(heap))), 1L]
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

# match(x, table) for integer ids unique in `table` (sample and location
# ids), through a direct index where they are positive and dense (R's hashed
# match() takes seconds on 10^7 sorted ids); match() otherwise.
reference_match_ids <- function(x, table) {
  if (!is.integer(x) || !reference_dense_ids(table)) {
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
reference_dense_ids <- function(ids) {
  n <- length(ids)
  if (!is.integer(ids) || !n || anyNA(ids)) {
    return(FALSE)
  }
  min(ids) >= 1L && max(ids) <= 4 * n + 1024 && !anyDuplicated(ids)
}

# The file each frame's function is defined in, one per frame of `frames`
# (the view's Top table shows one file per function name). A location's file
# is that of the line R's profiler wrote in front of the frame: the line
# running in that function, in its own file, except in the innermost call of
# a function without source references (a base function evaluating its
# caller's arguments, perhaps under `<GC>`), where it is the caller's line,
# the one written after the frame. So a frame whose file and line are its
# caller's, under another name, tells nothing of where it is defined; a
# name's file is the one most of its other frames have, "" where none has
# one. (Formats that name the file of a function, as pprof does, give the
# same file everywhere.)
reference_defining_files <- function(stack, frames) {
  row <- reference_match_ids(stack$location_id, frames$location_id)
  caller <- reference_caller_rows(stack$sample_id, stack$depth)
  # (per stack row through the frames' integer groups: 10^7 rows at 10^6
  # samples, where strings per row take seconds)
  place <- vctrs::vec_group_id(data.frame(file = frames$filename, line = frames$line))
  who <- vctrs::vec_group_id(frames$name)
  up <- row[caller]
  callers_line <- !is.na(caller) & place[row] == place[up] & who[row] != who[up]
  trusted <- !is.na(row) & nzchar(frames$filename)[row] & !callers_line
  used <- row[which(trusted)]
  # each (name, file) with its number of trusted frames and its first, the
  # most frequent first (as vctrs::vec_count(sort = "count") orders them)
  count <- tabulate(used, nrow(frames))
  first <- integer(nrow(frames))
  first[rev(used)] <- rev(seq_along(used))
  seen <- which(count > 0L)
  pair <- vctrs::vec_group_id(data.frame(name = frames$name, file = frames$filename))[seen]
  pair_count <- tapply(count[seen], pair, sum)
  pair_first <- tapply(first[seen], pair, min)
  pair_row <- seen[match(as.integer(names(pair_count)), pair)]
  ranked <- pair_row[order(-pair_count, pair_first)]
  found <- ranked[!duplicated(frames$name[ranked])]
  out <- frames$filename[found][match(frames$name, frames$name[found])]
  out[is.na(out)] <- ""
  out
}

# For each row of a stack (`sample_id`, `depth`), the row of its caller (the
# same sample, one deeper), or NA: the next row where the rows are in sample
# order with depths increasing within each (as the profile's stacks are),
# else by matching.
reference_caller_rows <- function(sample_id, depth) {
  n <- length(sample_id)
  if (n < 2L || anyNA(sample_id) || anyNA(depth) || is.unsorted(sample_id)) {
    return(vctrs::vec_match(
      data.frame(sample_id = sample_id, depth = depth + 1L),
      data.frame(sample_id = sample_id, depth = depth)
    ))
  }
  depth <- as.integer(depth)
  same <- sample_id[-1L] == sample_id[-n]
  if (!all(depth[-1L][same] > depth[-n][same])) {
    return(vctrs::vec_match(
      data.frame(sample_id = sample_id, depth = depth + 1L),
      data.frame(sample_id = sample_id, depth = depth)
    ))
  }
  out <- rep(NA_integer_, n)
  below <- which(same & depth[-1L] == depth[-n] + 1L)
  out[below] <- below + 1L
  out
}

# The view's heap lines and defining files of `x` (a profile in memory or in
# a database) as the package computes them (Rust) and as the reference does,
# taken at the points of view_data() where it computes them.
view_columns_and_reference <- function(x) {
  parts <- summary_parts(x)
  types <- view_types(parts)
  frames <- location_frames(parts)
  lines <- view_lines(parts, frames)
  heap <- view_heap_lines(parts, frames, lines$location_line_key, lines$n_line_keys)
  heap_reference <- reference_heap_lines(
    parts, frames, lines$location_line_key, lines$n_line_keys
  )
  parts <- db_samples_in_memory(parts, types)
  list(
    heap = heap, heap_reference = heap_reference,
    files = defining_files(parts$stack, frames),
    files_reference = reference_defining_files(parts$stack, frames)
  )
}
