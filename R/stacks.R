# The summary family: what summaries, flame graphs and folded stacks share. The
# frames and the values of one sample type are taken from a v2 dm or a v1 object
# in the long form the Rust core reads (src/rust/core/src/summary.rs); grouping,
# counting recursion once, and merging stacks into a call tree happen there.

# The tables these functions need, in the same shape for v1 and v2 profiles:
# stack rows, sample values (long form), locations, functions, samples, sources,
# and what the sources say about sample types (declared order, default type).
# Only what R must check is checked here (tables, columns, types); the core
# refuses broken stacks and keys.
summary_parts <- function(x, call = rlang::caller_env()) {
  if (inherits(x, "profile_data")) {
    validate_v1(x, call = call)
    # one v2 sample per v1 row, with the row's value
    tables <- v2_tables_from_v1(x, repeat_rows = FALSE)
  } else if (is_db_profile(x)) {
    # `stack` and `values` stay in the database (lazy tables)
    tables <- db_summary_parts_tables(x, call = call)
  } else if (is_v2(x)) {
    tables <- check_v2_tables(x, call = call)
  } else {
    abort_not_profile(x, call = call)
  }
  # Names as valid UTF-8 (the package's rule for strings in other encodings or
  # with invalid bytes): sorting and matching them needs it.
  functions <- tables$functions
  for (col in c("name", "system_name", "filename")) {
    functions[[col]] <- as_valid_utf8(functions[[col]])
  }
  # `type` and `unit` of sample_values stay as they are: the binding reads them
  # (by the rules of as_valid_utf8()) without going over every row in R.
  values <- tables$sample_values
  # The samples of the base of a difference (profile_diff()), whose values
  # are negated: none outside a difference.
  base_sources <- tables$sources$source_id[tables$sources[["diff_base"]] %in% TRUE]
  parts <- list(
    stack = tables$sample_locations,
    base_samples = tables$samples$sample_id[tables$samples$source_id %in% base_sources],
    values = values,
    locations = tables$locations,
    functions = functions,
    # Only the samples in `samples` count: rows of the other per-sample
    # tables whose sample is not there (a `samples` table filtered with dplyr)
    # are left out by the core (src/rust/core/src/summary/counted.rs) and by
    # the SQL of a database-backed profile.
    samples = tables$samples,
    # a database-backed profile's samples (a db_table(); NULL in memory)
    samples_db = tables[["samples_db"]],
    db_views = tables[["db_views"]],
    sources = tables$sources,
    # extension table and column: absent from hand-built profiles
    declared_types = utf8_if_character(tables[["sample_types"]][["type"]]),
    default_types = utf8_if_character(tables$sources[["default_sample_type"]]),
    # extension table: the text of source files (NULL when the profile has none)
    source_lines = tables[["source_lines"]],
    # extension table: the totals before the verbs (NULL when none filtered)
    unfiltered_totals = tables[["unfiltered_totals"]]
  )
  pairs <- value_types(values)
  parts$derived <- derived_time_type(tables$sources, pairs)
  parts$types <- with_derived_type(pairs, parts$derived)
  parts
}

# The sample type `time` (in seconds) that summaries derive from the `samples`
# counts of Rprof sources: a count of timer ticks times the source's interval
# (`period`, in nanoseconds of CPU time: `period_type` "cpu", `period_unit`
# "nanoseconds", as read_rprof() records them). A list of the derived type, its
# unit, the type it comes from, the sources that have it with the factor of
# each, and whether every source has it (then it is the default type instead
# of `samples`); NULL where no source is such, where the counts are in another
# unit than `count` (scaled by profile_scale() with a unit), or where the
# profile has a type `time` of its own.
derived_time_type <- function(sources, pairs) {
  counts <- pairs$unit[pairs$type %in% "samples"]
  if (!identical(counts, "count") || "time" %in% pairs$type) {
    return(NULL)
  }
  period <- sources[["period"]]
  if (!is.numeric(period)) {
    return(NULL)
  }
  ticks <- sources$source_type %in% "rprof" & sources[["period_type"]] %in% "cpu" &
    sources[["period_unit"]] %in% "nanoseconds" & is.finite(period) & period > 0
  if (!any(ticks)) {
    return(NULL)
  }
  list(
    type = "time", unit = "seconds", from = "samples",
    source_id = sources$source_id[ticks], factor = period[ticks] / 1e9,
    every_source = all(ticks)
  )
}

# The (type, unit) pairs of a profile's values, with the derived type (if
# any) right after the type it comes from.
with_derived_type <- function(pairs, derived) {
  if (is.null(derived)) {
    return(pairs)
  }
  at <- match(derived$from, pairs$type)
  rows <- append(seq_len(nrow(pairs)), NA_integer_, after = at)
  out <- pairs[rows, , drop = FALSE]
  out$type[at + 1L] <- derived$type
  out$unit[at + 1L] <- derived$unit
  out
}

# The distinct (type, unit) pairs of sample_values, in order of first appearance.
value_types <- function(values) {
  if (is_db_table(values)) {
    return(db_value_types(values))
  }
  if (is_db_stacks(values)) {
    return(db_stacks_value_types(values))
  }
  pairs <- rust_value(
    ffi_profile_value_types(as.character(values$type), as.character(values$unit)),
    "Can't read the sample types."
  )
  tibble::new_tibble(pairs, nrow = length(pairs$type))
}

# The sample type to look at, with its unit: `type` if given, else the one `go
# tool pprof` shows ("Sample values" in ?profile_v2): the sources' default
# sample type, else the profile's last sample type, in the order a pprof file
# written from it lists them (declared types, then the others as they appear).
# Gauges are refused: a heap size summed over samples means nothing; the
# defaults pass them over.
choose_sample_type <- function(parts, type = NULL, derived_default = TRUE,
                               call = rlang::caller_env()) {
  pairs <- parts$types
  present <- unique(pairs$type)
  declared <- unique(parts$declared_types[!is.na(parts$declared_types)])
  known <- c(intersect(declared, present), setdiff(present, declared), setdiff(declared, present))
  gauges <- v2_schema()$gauge_types
  summable <- setdiff(known, gauges)
  # (a derived type is never the last type of a file)
  in_file_order <- setdiff(union(declared, present), c(gauges, parts$derived$type))
  if (rlang::is_string(type) && type %in% gauges) {
    abort_argument(c(
      paste(
        "Sample type {.val {type}} is a gauge (a level at each sample), not an amount: its",
        "values cannot be added up."
      ),
      i = "Summable types of this profile: {.val {summable}}."
    ), type = type, summable = summable, call = call)
  }
  if (is.null(type)) {
    type <- default_sample_type(parts, summable, in_file_order, derived_default, call)
  } else if (!rlang::is_string(type) || !type %in% known) {
    abort_argument(c(
      "{.arg type} must be one of the profile's sample types.",
      i = "Available: {.val {known}}."
    ), known = known, call = call)
  }
  unit <- unique(pairs$unit[pairs$type %in% type])
  if (length(unit) > 1) {
    abort_profile("unsupported",
      paste(
        "Sample type {.val {type}} comes in several units ({.val {unit}}); their values cannot",
        "be added up."
      ),
      type = type, unit = unit, call = call
    )
  }
  list(type = type, unit = if (length(unit)) unit else NA_character_)
}

# The sample type `go tool pprof` shows when none is given (see
# choose_sample_type()); Rprof ticks become the time they stand for (see
# derived_time_type()) where `derived_default`.
default_sample_type <- function(parts, summable, in_file_order, derived_default, call) {
  defaults <- parts$default_types[!is.na(parts$default_types)]
  defaults <- defaults[defaults %in% summable]
  type <- if (length(defaults)) {
    defaults[[1]]
  } else if (length(in_file_order)) {
    in_file_order[[length(in_file_order)]]
  } else {
    abort_argument("The profile has no summable sample types to look at.", call = call)
  }
  derived <- parts$derived
  if (derived_default && !is.null(derived) && derived$every_source && type == derived$from) {
    type <- derived$type
  }
  type
}

# One row per location: the frame it stands for. A location without a function
# shows its address (as pprof does) or "<?>".
location_frames <- function(parts) {
  locations <- parts$locations
  functions <- parts$functions
  i <- match(locations$function_id, functions$function_id)
  name <- functions$name[i]
  no_name <- is.na(name)
  name[no_name] <- functions$system_name[i][no_name]
  no_name <- is.na(name)
  if (any(no_name)) {
    address <- locations$address
    fallback <- if (is.character(address)) address[no_name] else NA_character_
    name[no_name] <- ifelse(is.na(fallback), "<?>", fallback)
  }
  filename <- functions$filename[i]
  filename[is.na(filename)] <- ""
  line <- locations$line
  line <- if (is.null(line)) rep(0L, length(i)) else as.integer(line)
  line[is.na(line)] <- 0L
  tibble::new_tibble(
    list(location_id = locations$location_id, name = name, filename = filename, line = line),
    nrow = length(i)
  )
}

# The list the Rust binding reads: stack rows, a key (1..n_keys) per location,
# the samples (only theirs count) and the values of the chosen sample type
# (those of the type it is derived from, with the factor of each source, for
# a derived type).
stack_input <- function(parts, type, location_key, n_keys) {
  values <- parts$values
  derived <- parts$derived
  is_derived <- !is.null(derived) && identical(type, derived$type)
  list(
    sample_id = parts$stack$sample_id,
    depth = parts$stack$depth,
    location_id = parts$stack$location_id,
    locations = parts$locations$location_id,
    location_key = as.integer(location_key),
    n_keys = as.integer(n_keys),
    samples = parts$samples$sample_id,
    sample_source = parts$samples$source_id,
    # the rows of sample type `type` are chosen by the binding
    value_sample_id = values$sample_id,
    value_type = as.character(values$type),
    value = values$value,
    type = if (is_derived) derived$from else type,
    derived_source = if (is_derived) as.integer(derived$source_id),
    derived_factor = if (is_derived) as.double(derived$factor)
  )
}

# Self and total value per frame key (see stack_input()) and the grand total.
frame_key_totals <- function(parts, type, location_key, n_keys, call = rlang::caller_env()) {
  if (is_db_table(parts$values)) {
    return(db_key_totals(parts, type, location_key, n_keys, call = call))
  }
  # the layout's values summed per stack id in the database, then in memory
  parts <- stacks_in_memory(parts, type, call = call)
  input <- stack_input(parts, type, location_key, n_keys)
  rust_value(ffi_profile_key_totals(input), "Can't summarise the profile.", call = call)
}

# Frames keyed by function name, keys numbered in byte order of the names, so that
# call trees come out alphabetical whatever the locale.
keys_by_name <- function(frames) {
  labels <- sort(unique(frames$name), method = "radix")
  list(labels = labels, key = match(frames$name, labels))
}

# The merged call tree of a profile for one sample type, depth first; element 1 is
# the root. `name` and `filename` are those of each node's frame (NA for the root).
call_tree_of <- function(parts, sample_type, call = rlang::caller_env()) {
  parts <- stacks_in_memory(parts, sample_type$type, call = call)
  frames <- location_frames(parts)
  keys <- keys_by_name(frames)
  input <- stack_input(parts, sample_type$type, keys$key, length(keys$labels))
  tree <- rust_value(ffi_profile_call_tree(input), "Can't build the call tree.", call = call)
  named <- tree$key > 0
  file_of_label <- frames$filename[match(keys$labels, frames$name)]
  tree$name <- rep(NA_character_, length(named))
  tree$name[named] <- keys$labels[tree$key[named]]
  tree$filename <- rep(NA_character_, length(named))
  tree$filename[named] <- file_of_label[tree$key[named]]
  tree
}
