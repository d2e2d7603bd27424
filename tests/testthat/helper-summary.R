# Hand-built v2 profiles for the summary, flame graph and folded-stack tests.

# One sample per element of `stacks` (frames root first, separated by ";"), with
# `values` of one sample type. A frame may be written "name@file:line"; each
# distinct frame is a location, each distinct name a function (its file is the
# first one given for it).
v2_from_stacks <- function(stacks, values = 1, type = "samples", unit = "count", ...) {
  n <- length(stacks)
  values <- rep_len(values, n)
  frames <- lapply(strsplit(stacks, ";", fixed = TRUE), rev)
  depth_count <- lengths(frames)
  frame <- unlist(frames)
  distinct <- unique(frame)
  name <- sub("@.*$", "", distinct)
  where <- ifelse(grepl("@", distinct), sub("^.*@", "", distinct), ":0")
  file <- sub(":[0-9]+$", "", where)
  line <- as.integer(sub("^.*:", "", where))
  fun_names <- unique(name)
  fun_files <- file[match(fun_names, name)]
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1L, source_type = "manual", source_uri = "hand-built",
      source_timestamp = NA_real_, ...
    ),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = 1L),
    sample_values = tibble::tibble(
      sample_id = seq_len(n), type = type, unit = unit, value = as.double(values)
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), depth_count),
      depth = sequence(depth_count),
      location_id = match(frame, distinct)
    ),
    locations = tibble::tibble(
      location_id = seq_along(distinct), function_id = match(name, fun_names), line = line
    ),
    functions = tibble::tibble(
      function_id = seq_along(fun_names), name = fun_names, system_name = fun_names,
      filename = fun_files, start_line = 0L
    )
  )
}

# Adds a second sample type to every sample of `x` (values recycled).
with_second_type <- function(x, type, unit, values) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  n <- nrow(tables$samples)
  extra <- tibble::tibble(
    sample_id = tables$samples$sample_id,
    type = type,
    unit = unit,
    value = rep_len(as.double(values), n)
  )
  tables$sample_values <- rbind(tables$sample_values, extra)
  do.call(new_profile_v2, tables)
}
