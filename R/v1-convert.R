# Conversions between v1 objects (R/v1-object.R) and v2 tables. v1 -> v2:
# profile_v2_from_v1(), and the tables the writers and the summary functions take
# from a v1 object. v2 -> v1: one conversion, v1_from_v2_tables(), with the rules
# of each reader (read_rprof() and read_pprof() with version = "1.0") as
# arguments.

# ---------------------------------------------------------------------------
# From v1 to v2

#' Convert a v1 profile to v2
#'
#' `profile_v2_from_v1()` turns a v1 object (class `profile_data`, as returned by
#' profile 1.0.x or by the readers with `version = "1.0"`, see [profile_v1])
#' into a v2 profile (see [new_profile_v2()]).
#'
#' v1 aggregates: a row of its `samples` table stands for `value` consecutive
#' samples with the same stack. v2 keeps raw samples, so each v1 row becomes
#' `value` v2 samples, each with one sample value of type `samples`, unit
#' `count`, value 1, and the stack of the v1 row (depth 1 = its first, innermost
#' location). The total count is unchanged. v1 has no time per sample: the
#' extension column `samples$time` is `NA`.
#'
#' All samples get one source, with `source_type` `"v1"` and `source_uri` `NA`:
#' a v1 object does not say reliably which file it was read from, so no origin is
#' guessed (the `.rprof` and `.msg` components of objects read by profile 1.0.x
#' hold the parsed file, not its name). The `locations` and `functions` tables
#' keep their ids, lines and names; columns whose names start with a dot and
#' components whose names start with a dot are dropped. Ids that v2 does not
#' allow (`NA`, zero or negative, which v1 tolerates) are renumbered by row.
#' The `meta` table of the result has the version `"2.0"`, and the extension
#' table `sample_types` declares `samples`/`count` for the source.
#'
#' @param x A v1 `profile_data` object.
#' @return A valid v2 profile (a `dm`).
#' @seealso [combine_profiles()] to merge converted profiles with others.
#' @export
#' @examples
#' path <- system.file("samples/rprof/1.out", package = "profile")
#' v1 <- read_rprof(path, version = "1.0")
#'
#' # Aggregate consecutive identical stacks, as a v1 producer may do
#' first <- v1$samples[1, ]
#' first$value <- 3L
#' v1$samples <- rbind(first, v1$samples[-1, ])
#' v1
#'
#' v2 <- profile_v2_from_v1(v1)
#' v2
#' nrow(v2$samples) == sum(v1$samples$value)
profile_v2_from_v1 <- function(x) {
  with_profile_errors("invalid", "Can't convert {.arg x} to a v2 profile.", {
    validate_v1(x)
    value <- x$samples$value
    total <- sum(as.double(value))
    if (total > .Machine$integer.max) {
      abort_profile(
        "limit",
        "The v1 profile counts {total} samples; v2 holds at most {max} samples.",
        total = total, max = .Machine$integer.max
      )
    }
    do.call(new_profile_v2_impl, v2_tables_from_v1(x))
  })
}

# The v2 tables of a valid v1 object, without validation. `repeat_rows = TRUE`
# makes each v1 row `value` raw samples with the value 1 (v2's rule for
# profile_v2_from_v1()); `FALSE` keeps one sample per row with the row's `value`
# (for writers: v1 rows are aggregated already).
v2_tables_from_v1 <- function(x, repeat_rows = TRUE) {
  value <- x$samples$value
  # `origin[k]`: the v1 row that v2 sample k comes from.
  origin <- if (repeat_rows) rep(seq_along(value), value) else seq_along(value)
  n <- length(origin)
  stack_ids <- lapply(x$samples$locations, .subset2, "location_id")
  stack_length <- lengths(stack_ids)[origin]

  locations <- x$locations
  functions <- x$functions
  location_ids <- renumber_if_needed(locations$location_id)
  function_ids <- renumber_if_needed(functions$function_id)
  # v1 matches NA to NA in stacks (as %in% does); a location's NA function_id
  # means "no function" and stays NA.
  stack_location_id <- unlist(stack_ids[origin], use.names = FALSE)
  stack_location_id <- location_ids[match(stack_location_id, locations$location_id)]
  location_function_id <- function_ids[
    match(locations$function_id, functions$function_id, incomparables = NA)
  ]

  list(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1L, source_type = "v1", source_uri = NA_character_,
      source_timestamp = NA_real_
    ),
    # v1 has no time per sample
    samples = tibble::tibble(
      sample_id = seq_len(n), source_id = rep(1L, n), time = rep(NA_real_, n)
    ),
    sample_values = tibble::tibble(
      sample_id = seq_len(n), type = rep("samples", n), unit = rep("count", n),
      value = if (repeat_rows) rep(1, n) else as.double(value)
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), stack_length),
      depth = sequence(stack_length),
      location_id = stack_location_id
    ),
    locations = tibble::tibble(
      location_id = location_ids,
      function_id = location_function_id,
      line = locations$line
    ),
    functions = tibble::tibble(
      function_id = function_ids,
      name = functions$name,
      system_name = functions$system_name,
      filename = functions$filename,
      start_line = functions$start_line
    ),
    sample_types = tibble::tibble(source_id = 1L, type = "samples", unit = "count")
  )
}

# Ids as they are when v2 accepts them (positive, not NA), else 1..n by row.
renumber_if_needed <- function(ids) {
  if (all(!is.na(ids) & ids > 0L)) ids else seq_along(ids)
}

# ---------------------------------------------------------------------------
# "<?>": the name of a function v1 knows no name for

# v1 allows no empty function name; pprof writes an unset name as "". profile
# 1.0.x read such names as "<?>" and wrote "<?>" back as "", so a v1 object
# goes through a pprof file unchanged. Both directions are here.
v1_unknown_name <- "<?>"

# v2 -> v1 (the default `naming` rule of v1_from_v2_tables()): unset (empty or
# NA) names become "<?>", an unset (NA) start_line 0 (unknown), since v1 allows
# neither.
v1_unset_as_unknown <- function(functions) {
  for (col in c("name", "system_name")) {
    unset <- is.na(functions[[col]]) | functions[[col]] == ""
    functions[[col]][unset] <- v1_unknown_name
  }
  functions$start_line[is.na(functions$start_line)] <- 0L
  functions
}

# v1 -> pprof: the v2 tables write_pprof() writes for a valid v1 object, one
# sample per v1 row with its value, and "<?>" names unset again (a system name
# only where the name is unset too, see below). (The Rust writer checks the
# tables.)
pprof_tables_from_v1 <- function(x) {
  tables <- v2_tables_from_v1(x, repeat_rows = FALSE)
  functions <- tables$functions
  no_name <- functions$name == v1_unknown_name
  # The writer leaves out the system name of R frames (v1 frames are R's)
  # that equals the name, and read_pprof() takes an empty one for the name
  # again: a known name with an unknown system name keeps "<?>", so that
  # it reads back as "<?>", not as the name.
  no_system_name <- functions$system_name == v1_unknown_name & no_name
  functions$name[no_name] <- ""
  functions$system_name[no_system_name] <- ""
  tables$functions <- functions
  tables
}

# ---------------------------------------------------------------------------
# From v2 to v1

# The v1 object for v2 tables: one v1 sample per v2 sample (in the order of the
# `samples` table) with its count as `value`, and its stack innermost first. What
# differs between sources is given by four rules, each a function:
# - `counts(tables, call)`: each sample's count, an integer (0 leaves the sample
#   out), refusing a profile whose counts v1 cannot hold;
# - `frames(tables)`: `tables` with the frames v1 keeps: `sample_locations` (by
#   sample, innermost first) and `locations`;
# - `naming(functions)`: the functions table with the names v1 shows;
# - `numbering(tables)`: the v1 `locations` and `functions` tables, and the v1
#   location id of each row of `sample_locations` (`stack_location_id`).
# The defaults convert any valid v2 profile, keeping its ids; the readers' rules
# follow (v1_from_pprof(), v1_from_rprof()). `stack_names` (one per sample)
# names the stacks; `dotted` are the components after the five tables.
v1_from_v2_tables <- function(tables,
                              counts = v1_counts_of_samples,
                              frames = v1_frames_by_depth,
                              naming = v1_unset_as_unknown,
                              numbering = v1_ids_kept,
                              stack_names = NULL, dotted = list(),
                              call = rlang::caller_env()) {
  value <- counts(tables, call)
  keep <- value > 0L
  tables <- frames(tables)
  tables$functions <- naming(tables$functions)
  v1 <- numbering(tables)
  samples <- v1_samples(
    tables$samples$sample_id[keep], value[keep],
    tables$sample_locations$sample_id, v1$stack_location_id
  )
  if (!is.null(stack_names)) {
    names(samples$locations) <- stack_names[keep]
  }
  new_profile_data(c(
    list(
      meta = tibble::tibble(key = "version", value = "1.0"),
      sample_types = tibble::tibble(type = "samples", unit = "count"),
      samples = samples,
      locations = v1$locations,
      functions = v1$functions
    ),
    dotted
  ))
}

# The v1 `samples` table from stacks in long form: `sample_id` and `location_id`
# (rows ordered by sample, innermost frame first), for samples `ids` in this order,
# each with `value`. A sample without frames gets an empty locations tibble.
v1_samples <- function(ids, value, stack_sample_id, stack_location_id) {
  # Profiles have 10^5 and more samples, so this avoids what is slow per call:
  # factor() (the grouping factor is made directly) and tibble::new_tibble()
  # (the tibbles are made by setting their attributes).
  group <- structure(
    match(stack_sample_id, ids),
    levels = as.character(seq_along(ids)), class = "factor"
  )
  groups <- split(stack_location_id, group)
  tbl_class <- c("tbl_df", "tbl", "data.frame")
  locations <- lapply(unname(groups), function(l) {
    n <- length(l)
    `attributes<-`(list(l), list(
      names = "location_id", class = tbl_class,
      row.names = if (n > 0L) c(NA_integer_, -n) else integer()
    ))
  })
  tibble::tibble(value = value, locations = locations)
}

# Default `counts`: each sample's samples/count value, or 1 for a sample that has
# none (a profile combining sources of other types). A count of 0 stands for no
# tick and leaves the sample out (v1 values are > 0).
v1_counts_of_samples <- function(tables, call) {
  samples <- tables$samples
  sample_values <- tables$sample_values
  is_count <- sample_values$type == "samples" & sample_values$unit == "count"
  if (nrow(samples) > 0L && !any(is_count)) {
    abort_without_v1_counts(
      paste(
        "The v1 format holds only sample counts (type {.val samples}, unit {.val count}), and",
        "this profile has none."
      ),
      types = unique(paste0(sample_values$type, "/", sample_values$unit)),
      hint = "Use the v2 format (version = \"2.0\"), which keeps every sample type.",
      call = call
    )
  }
  counts <- sample_values[is_count, ]
  value <- counts$value[match(samples$sample_id, counts$sample_id)]
  value[is.na(value)] <- 1
  v1_checked_counts(
    value, value >= 0 & value == round(value) & value <= .Machine$integer.max,
    sample_ids = samples$sample_id,
    problem = "The v1 format holds whole sample counts; sample {sample} has the count {count}.",
    hint = "Use the v2 format (version = \"2.0\").",
    call = call
  )
}

# Refuses a profile without the counts v1 holds: `problem` says which counts are
# missing, `types` are the profile's sample types, `hint` points to v2.
abort_without_v1_counts <- function(problem, types, hint, call) {
  abort_profile(
    "unsupported",
    c(problem, i = "This profile's sample types: {.val {types}}.", i = hint),
    types = types, call = call
  )
}

# `value` as v1 counts (integers), refusing the first one the check `ok` fails:
# `problem` says why (a template that may use {sample}, from `sample_ids`, and
# {count}), `hint` what to do instead.
v1_checked_counts <- function(value, ok, sample_ids, problem, hint, call) {
  bad <- first_failing(ok)
  if (!is.na(bad)) {
    sample <- sample_ids[[bad]]
    count <- value[[bad]]
    abort_profile("unsupported", c(problem, i = hint), sample = sample, count = count, call = call)
  }
  as.integer(value)
}

# Default `frames`: every frame, ordered by sample and depth.
v1_frames_by_depth <- function(tables) {
  stacks <- tables$sample_locations
  tables$sample_locations <- stacks[order(stacks$sample_id, stacks$depth), ]
  tables
}

# Default `numbering`: the locations and functions keep their rows and ids.
v1_ids_kept <- function(tables) {
  list(
    locations = tables$locations[v1_required_columns$locations],
    functions = tables$functions[v1_required_columns$functions],
    stack_location_id = tables$sample_locations$location_id
  )
}

# ---------------------------------------------------------------------------
# From v2 to v1: pprof

# The v1 object that profile 1.0.x's read_pprof() returned, from the tables the
# v2 reader read: the first sample type, one v1 sample per pprof sample, one v1
# location per pprof location, "<?>" for unset names.
v1_from_pprof <- function(tables, call = rlang::caller_env()) {
  v1_from_v2_tables(tables, counts = pprof_v1_counts, frames = pprof_v1_frames, call = call)
}

# 1.0.x read the first sample type and required it to be samples/count, each
# sample's count positive.
pprof_v1_counts <- function(tables, call) {
  types <- tables$sample_types
  if (nrow(types) == 0L || types$type[[1]] != "samples" || types$unit[[1]] != "count") {
    abort_without_v1_counts(
      "Version 1.0 holds only sample counts: the first sample type must be {.val samples/count}.",
      types = if (nrow(types)) paste0(types$type, "/", types$unit) else "none",
      hint = "Read it with {.code version = \"2.0\"}, which keeps every sample type.",
      call = call
    )
  }
  sample_values <- tables$sample_values
  value <- sample_values$value[sample_values$type == "samples"]
  v1_checked_counts(
    value, value > 0 & value <= .Machine$integer.max,
    sample_ids = seq_along(value),
    problem = "Version 1.0 holds positive sample counts; sample {sample} has the count {count}.",
    hint = "Read the profile with {.code version = \"2.0\"}.",
    call = call
  )
}

# A pprof location with inlined lines is one v1 location: its outermost line
# (the row not inlined into another, which carries the pprof id). The reader
# writes the frames by sample, innermost first.
pprof_v1_frames <- function(tables) {
  locations <- tables$locations
  outermost <- is.na(locations$inlined_into)
  stacks <- tables$sample_locations
  tables$sample_locations <- stacks[stacks$location_id %in% locations$location_id[outermost], ]
  tables$locations <- locations[outermost, ]
  tables
}

# ---------------------------------------------------------------------------
# From v2 to v1: Rprof

# The v1 object profile 1.0.x's read_rprof() returned, from the v2 tables of the
# same file, the file line each sample was read from, and the lines of the file
# (for the `.rprof` component, which holds them as 1.0.x split them). Every
# sample is one tick; the reader writes the frames by sample, innermost first.
# Stacks are named by their position among the lines that are neither the first
# nor `#File` lines.
v1_from_rprof <- function(tables, sample_lines, lines) {
  file_lines <- grep("^#File ", lines)
  trace_index <- sample_lines - 1L - findInterval(sample_lines, file_lines)
  # File numbers count every reference, those of the top level too.
  files <- rprof_v1_files_in_order(tables)
  v1 <- rprof_v1_without_top_level(tables)
  ds <- v1_from_v2_tables(
    v1$tables,
    counts = function(tables, call) v1$counts,
    frames = identity,
    naming = rprof_v1_names,
    numbering = function(tables) rprof_v1_ids(tables, files),
    stack_names = as.character(trace_index),
    dotted = list(.rprof = rprof_lines_split(lines))
  )
  validate_profile(ds)
  ds
}

# The lines of an Rprof file as profile 1.0.x split them: the first header
# line, the `#File` lines, and the other lines (stacks, further headers).
rprof_lines_split <- function(lines) {
  files <- grep("^#File ", lines)
  other <- setdiff(seq_along(lines), c(1L, files))
  list(header = lines[1L], files = lines[files], traces = lines[other])
}

# profile 1.0.x read a line reference at the end of a stack line, after the
# outermost frame, as part of a cut frame: it dropped it, with its warning for
# cut lines, and dropped a sample left without frames. A v2 read makes such a
# reference a frame of the top level (R writes it for top-level code with
# source references; a line R cut may end in one too). The v1 tables, as 1.0.x
# read them: `tables` without the top level's frames, locations and functions;
# `counts`, 1 per sample, 0 for a sample whose only frames were the top level's
# (unless it has memory values: a tick of memory profiling is a sample with or
# without frames, a documented fix); `dropped`, whether any frame went.
rprof_v1_without_top_level <- function(tables) {
  functions <- tables$functions
  # the top level's function (see "The top level" in ?profile_v2)
  top_function <- functions$name == v2_schema()$top_level_name & functions$system_name == ""
  samples <- tables$samples
  counts <- rep(1L, nrow(samples))
  if (!any(top_function)) {
    return(list(tables = tables, counts = counts, dropped = FALSE))
  }
  locations <- tables$locations
  top_location <- locations$function_id %in% functions$function_id[top_function]
  stacks <- tables$sample_locations
  top_frame <- stacks$location_id %in% locations$location_id[top_location]
  kept <- stacks[!top_frame, ]
  values <- tables$sample_values
  memory <- values$sample_id[values$type %in% v2_schema()$memory_types]
  emptied <- samples$sample_id %in% stacks$sample_id &
    !samples$sample_id %in% kept$sample_id &
    !samples$sample_id %in% memory
  counts[emptied] <- 0L
  tables$sample_locations <- kept
  tables$locations <- locations[!top_location, ]
  tables$functions <- functions[!top_function, ]
  list(tables = tables, counts = counts, dropped = any(top_frame))
}

# The warnings of a v1 read, as 1.0.x gave them: its warning for cut lines where
# it dropped a reference at the end of a line (`dropped`), and one of its two
# warnings only, the one for unexpected content first.
rprof_v1_warnings <- function(warnings, dropped) {
  incomplete <- v2_schema()$rprof_warnings$incomplete
  unexpected <- v2_schema()$rprof_warnings$unexpected
  if (dropped && !incomplete %in% warnings) {
    warnings <- c(warnings, incomplete)
  }
  if (unexpected %in% warnings) {
    warnings <- setdiff(warnings, incomplete)
  }
  warnings
}

# profile 1.0.x's `name` for an Rprof frame: its system name with `.` as `_` and
# `<GC>` as `gc`.
rprof_v1_names <- function(functions) {
  name <- gsub(".", "_", functions$system_name, fixed = TRUE)
  functions$name <- gsub("<GC>", "gc", name, fixed = TRUE)
  functions
}

# 1.0.x numbered functions in order of (name, file number), with the smallest
# line as start line, and gave them the file number as the column `.file_id`. It
# numbered locations in the order of the rows of a merge() of all frames with the
# functions: grouped by function in order of the name and the file number as
# text, and within a function in the order R's merge() leaves equal keys in (an
# unstable sort, reproduced by ffi_rprof_legacy_merge_order()). 1.0.x sorted names in
# the collation of the locale; here it is always byte order (the same as 1.0.x
# run with LC_COLLATE=C).
rprof_v1_ids <- function(tables, files) {
  fun <- tables$functions
  loc <- tables$locations
  stacks <- tables$sample_locations
  stack_loc <- match(stacks$location_id, loc$location_id)
  stack_fun <- match(loc$function_id[stack_loc], fun$function_id)
  file_id <- rprof_v1_file_ids(files, fun$filename)

  fun_order <- order(fun$system_name, file_id, method = "radix")
  v1_function_id <- integer(nrow(fun))
  v1_function_id[fun_order] <- seq_along(fun_order)
  functions <- tibble::tibble(
    function_id = seq_along(fun_order),
    name = fun$name[fun_order],
    system_name = fun$system_name[fun_order],
    filename = fun$filename[fun_order],
    start_line = fun$start_line[fun_order],
    .file_id = file_id[fun_order]
  )

  merge_key <- order(fun$system_name, as.character(file_id), method = "radix")
  loc_order <- rprof_v1_location_order(stacks$location_id, stack_fun, merge_key, loc$location_id)
  v1_location_id <- integer(nrow(loc))
  v1_location_id[loc_order] <- seq_along(loc_order)
  loc_fun <- match(loc$function_id, fun$function_id)
  list(
    functions = functions,
    locations = tibble::tibble(
      location_id = seq_along(loc_order),
      function_id = v1_function_id[loc_fun[loc_order]],
      line = loc$line[loc_order]
    ),
    stack_location_id = v1_location_id[stack_loc]
  )
}

# 1.0.x's file ids are the numbers of the `#File` lines. R numbers files in
# order of first use, so for one segment these are the ranks of the file names
# in order of first use; with several segments (appended sessions, whose numbers
# restart) a file keeps the rank of its first use in the whole file.
# rprof_v1_files_in_order() lists the files in that order, from the frames of
# every sample (in file order) that have a reference; rprof_v1_file_ids() gives
# the file id of each function with the file name `filename` (0 for none).
rprof_v1_files_in_order <- function(tables) {
  loc <- tables$locations
  fun <- tables$functions
  stack_loc <- match(tables$sample_locations$location_id, loc$location_id)
  frame_filename <- fun$filename[match(loc$function_id[stack_loc], fun$function_id)]
  has_ref <- frame_filename != "" | loc$line[stack_loc] != 0L
  unique(frame_filename[has_ref])
}

rprof_v1_file_ids <- function(files, filename) {
  file_id <- match(filename, files, nomatch = 0L)
  file_id[filename == ""] <- 0L
  file_id
}

# The rows of the locations table (ids `location_id`) in 1.0.x's order: the
# frames (`stack_location_id`, of the functions `stack_fun`) in the order of
# merge()'s rows, grouped by the functions' `merge_key` order, each location at
# its first frame.
rprof_v1_location_order <- function(stack_location_id, stack_fun, merge_key, location_id) {
  merged <- rust_value(
    ffi_rprof_legacy_merge_order(match(stack_fun, stack_fun)),
    "Can't order the locations."
  )
  key_rank <- integer(length(merge_key))
  key_rank[merge_key] <- seq_along(merge_key)
  merged <- merged[order(key_rank[stack_fun[merged]], method = "radix")]
  match(unique(stack_location_id[merged]), location_id)
}
