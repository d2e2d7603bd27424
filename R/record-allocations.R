# Allocations recorded beside the time profile: `profile_record(allocations =
# TRUE)` runs R's allocation profiler, `Rprofmem()`, while `expr` runs, and adds
# what it wrote to the recording as a second source (R/record.R calls these
# four functions: start, stop, and the profile with the allocations added).

# Checks `allocations` and `threshold`, refuses when an Rprofmem() already
# runs, and starts one; NULL when no allocations are asked for.
start_allocations <- function(allocations, threshold, call = rlang::caller_env()) {
  if (!check_allocation_args(allocations, threshold, call)) {
    return(NULL)
  }
  if (!isTRUE(capabilities("profmem"))) {
    abort_profile("unsupported",
      "Can't record allocations: this R was built without {.fn Rprofmem}.",
      call = call
    )
  }
  if (isTRUE(rprofmem_running())) {
    abort_profile("busy", c(
      "Can't record allocations: R's allocation profiler is already running in this R session.",
      i = "R runs one {.fn Rprofmem} at a time; stop the other one ({.code Rprofmem(NULL)}) first."
    ), call = call)
  }
  path <- tempfile("profile-record-", fileext = ".rprofmem")
  started <- tryCatch(
    {
      utils::Rprofmem(path, threshold = threshold)
      TRUE
    },
    error = function(e) e,
    warning = function(w) w
  )
  if (!isTRUE(started)) {
    utils::Rprofmem(NULL)
    unlink(path)
    abort_profile("io", "Can't start the allocation profiler with the file {.file {path}}.",
      detail = conditionMessage(started), path = path, call = call
    )
  }
  state <- new.env(parent = emptyenv())
  state$path <- path
  state$running <- TRUE
  state
}

# Whether allocations are asked for; an error for arguments that are not a flag
# and a number of bytes.
check_allocation_args <- function(allocations, threshold, call) {
  if (!rlang::is_bool(allocations)) {
    abort_argument("{.arg allocations} must be {.code TRUE} or {.code FALSE}.", call = call)
  }
  if (!is.numeric(threshold) || length(threshold) != 1L || !is.finite(threshold) ||
    threshold < 0) {
    abort_argument("{.arg threshold} must be a number of bytes, at least 0.", call = call)
  }
  allocations || threshold > 0
}

# Stops the allocation profiler (once) and, unless `remove` is FALSE, removes
# its file.
stop_allocations <- function(allocations, remove = TRUE) {
  if (is.null(allocations)) {
    return(invisible())
  }
  if (allocations$running) {
    utils::Rprofmem(NULL)
    allocations$running <- FALSE
  }
  if (remove) unlink(allocations$path)
  invisible()
}

# Whether an Rprofmem() runs in this process: TRUE, FALSE, or NA where this
# cannot tell (no /proc/self/fd). R has no function that tells, so a probe
# allocates 1 MiB and looks for its line in the files the process has open
# (a running Rprofmem() writes it there, unless its threshold is above 1 MiB).
# The line is Rprofmem()'s own, `<bytes> :"raw" "profile_rprofmem_probe" ...`: the
# Rprof() of profile_record(), started before this, writes the probe's stack
# too when one of its ticks falls in the probe (`"raw" "profile_rprofmem_probe"
# ...`, or `:<memory>:"raw" ...`, never a space before a colon).
rprofmem_running <- function() {
  fd_dir <- "/proc/self/fd"
  if (!dir.exists(fd_dir)) {
    return(NA)
  }
  before <- open_file_sizes(fd_dir)
  profile_rprofmem_probe()
  after <- open_file_sizes(fd_dir)
  old <- before[names(after)]
  old[is.na(old)] <- 0
  for (path in names(after)[after > old]) {
    added <- tryCatch(read_bytes_from(path, old[[path]], after[[path]] - old[[path]]),
      error = function(e) raw()
    )
    if (has_probe_allocation(added)) {
      return(TRUE)
    }
  }
  FALSE
}

# Whether the bytes hold an Rprofmem() line of the probe's allocation.
has_probe_allocation <- function(bytes) {
  length(grepRaw("[0-9] :(\"[^\"\n]*\" )*\"profile_rprofmem_probe\" ", bytes)) > 0L
}

profile_rprofmem_probe <- function() {
  length(raw(2^20))
}

# The sizes of the regular files the process has open, named by path, after
# the C streams are flushed (R's Rprofmem() writes through one).
open_file_sizes <- function(fd_dir) {
  rust_value(ffi_flush_c_streams(), "Can't flush the output streams.")
  paths <- unique(Sys.readlink(list.files(fd_dir, full.names = TRUE)))
  paths <- paths[startsWith(paths, "/")]
  info <- file.info(paths, extra_cols = FALSE)
  keep <- !is.na(info$isdir) & !info$isdir
  sizes <- info$size[keep]
  names(sizes) <- paths[keep]
  sizes
}

read_bytes_from <- function(path, offset, n) {
  con <- file(path, "rb")
  on.exit(close(con))
  seek(con, offset)
  readBin(con, "raw", n = min(n, 2^20))
}

# `x` (a recording's time profile) with the allocations recorded added as a
# second source, cut as the time profile is (see cut_allocations()), their
# functions those of `x` where `x` has one function of that name.
add_recorded_allocations <- function(x, allocations) {
  if (is.null(allocations)) {
    return(x)
  }
  y <- read_rprofmem(allocations$path, source_uri = NA_character_)
  tables <- cut_allocations(dm::dm_get_tables(y, keyed = FALSE))
  tables$functions <- functions_like(tables$functions, dm::dm_get_tables(x)$functions)
  combine_profiles(x, dm_from_v2_tables(tables))
}

# The allocations made inside `expr`: the frame that profile_record() ran it in
# becomes the top level, the frames outside it are cut off, and the
# allocations made outside it are dropped.
cut_allocations <- function(tables) {
  sl <- tables$sample_locations
  sl <- sl[order(sl$sample_id, sl$depth), , drop = FALSE]
  loc <- match(sl$location_id, tables$locations$location_id)
  fun <- match(tables$locations$function_id[loc], tables$functions$function_id)
  name <- tables$functions$name[fun]
  frame <- record_expr_frames(sl$sample_id, name)
  ids <- sl$sample_id[frame]
  depth <- sl$depth[frame]
  top <- depth[match(sl$sample_id, ids)]
  sl <- sl[!is.na(top) & sl$depth <= top, , drop = FALSE]
  top_id <- max(c(0L, tables$functions$function_id, tables$locations$location_id)) + 1L
  at_top <- sl$depth == depth[match(sl$sample_id, ids)]
  sl$location_id[at_top] <- top_id
  tables$sample_locations <- sl
  tables$functions <- vctrs::vec_rbind(tables$functions, tibble::tibble(
    function_id = top_id, name = "<top level>", system_name = "", filename = "",
    start_line = 0L
  ))
  tables$locations <- vctrs::vec_rbind(tables$locations, tibble::tibble(
    location_id = top_id, function_id = top_id, line = 0L
  ))
  for (table in c("samples", "sample_values", "sample_labels")) {
    tables[[table]] <- tables[[table]][tables[[table]]$sample_id %in% ids, , drop = FALSE]
  }
  tables
}

# The rows (of frames sorted by sample, innermost first) of the frame of
# profile:::record_expr, at most one a sample. Rprofmem() names a call of a
# function that is no symbol `<Anonymous>` (both profile:::record_expr and
# profile::profile_record), so the frame is found by its place: the outermost
# `profile_record` or `<Anonymous>` frame followed inward by `eval` frames and
# then an `<Anonymous>` one (profile_record() runs the code with eval()), that
# last frame.
record_expr_frames <- function(sample_id, name) {
  n <- length(name)
  rows <- seq_len(n)
  is_eval <- name %in% "eval"
  # the nearest frame at or inside each row that is no eval (0: none)
  inner_non_eval <- cummax(ifelse(is_eval, 0L, rows))
  inward <- pmax(rows - 1L, 1L)
  candidate <- rows > 1L & name %in% c("profile_record", "<Anonymous>") &
    is_eval[inward] & sample_id[inward] == sample_id
  k <- inner_non_eval[inward]
  ok <- candidate & k >= 1L
  ok[ok] <- sample_id[k[ok]] == sample_id[ok] & name[k[ok]] == "<Anonymous>"
  # the outermost match of each sample: its last row
  matched <- rows[ok]
  last <- !duplicated(sample_id[matched], fromLast = TRUE)
  k[matched[last]]
}

# The functions of an allocation profile given the name, file and start line
# of the function of `like` (the time profile) that has their name, where it
# has exactly one, so that combine_profiles() makes them one row.
functions_like <- function(functions, like) {
  key <- ifelse(functions$name == "<top level>", "<top level>", functions$system_name)
  like_key <- ifelse(like$name == "<top level>", "<top level>", like$system_name)
  once <- like_key %in% like_key[!duplicated(like_key)] &
    !like_key %in% like_key[duplicated(like_key)]
  row <- match(key, like_key[once])
  found <- !is.na(row)
  like <- like[once, , drop = FALSE][row[found], , drop = FALSE]
  for (column in c("name", "system_name", "filename", "start_line")) {
    functions[[column]][found] <- like[[column]]
  }
  functions
}
