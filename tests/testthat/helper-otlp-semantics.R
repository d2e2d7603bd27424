# The independent readings of OTLP files and their siblings (issue 23), made
# in R from the oracle's canonical JSON (helper-otlp-oracle.R) and from the
# other tools' outputs, never from read_otlp():
#   - otlp_resolved_samples(): one row per observation, every index resolved;
#   - pyroscope_strprofile(): Pyroscope's expected query outputs;
#   - pprof_go_stacks() (Go's parser) and folded_stacks() for the siblings;
#   - function_totals() and stack_totals() to compare any of them.

# ---- resolved samples from the canonical JSON --------------------------------

# An AnyValue (canonical JSON, parsed) as text: strings as they are, integers in
# decimal, doubles with 17 significant digits, booleans true/false, bytes as
# base64:..., arrays [a, b], key-value lists {k=v, ...}; NULL (no value) "".
otlp_any_text <- function(v) {
  if (is.null(v) || !length(v)) {
    return("")
  }
  kind <- names(v)[[1]]
  x <- v[[1]]
  switch(kind,
    stringValue = x,
    intValue = as.character(x),
    doubleValue = if (is.character(x)) x else formatC(x, digits = 17, format = "g"),
    boolValue = if (isTRUE(x)) "true" else "false",
    bytesValue = paste0("base64:", x),
    arrayValue = paste0("[", paste(vapply(x, otlp_any_text, ""), collapse = ", "), "]"),
    kvlistValue = paste0("{", otlp_attributes_text(x), "}"),
    stop("unknown AnyValue kind ", kind)
  )
}

# Attributes (canonical: sorted by key) as "key=value" or "key=value [unit]",
# joined by ", ".
otlp_attributes_text <- function(attributes) {
  paste(vapply(attributes, function(a) {
    unit <- a[["unit"]] %||% ""
    paste0(a[["key"]], "=", otlp_any_text(a[["value"]]), if (nzchar(unit)) paste0(" [", unit, "]"))
  }, ""), collapse = ", ")
}

# The frames of a canonical stack, leaf first: each location's lines in order
# (a location's last line is the caller the others were inlined into); a
# location without lines is one frame with an empty name. A data frame:
# location (1-based in the stack), name, system_name, filename, start_line,
# line, column, inlined, address (text), mapping (file name),
# location_attributes.
otlp_stack_frames <- function(stack) {
  lines <- lapply(stack, function(loc) loc[["lines"]] %||% list(list()))
  n <- lengths(lines)
  flat <- unlist(lines, recursive = FALSE)
  fun <- lapply(flat, function(l) l[["function"]])
  text <- function(x, name) vapply(x, function(e) as.character(e[[name]] %||% ""), "")
  number <- function(x, name) vapply(x, function(e) as.numeric(e[[name]] %||% 0), 0)
  data.frame(
    location = rep(seq_along(stack), n),
    name = text(fun, "name"),
    system_name = text(fun, "systemName"),
    filename = text(fun, "filename"),
    start_line = number(fun, "startLine"),
    line = number(flat, "line"),
    column = number(flat, "column"),
    inlined = sequence(n) < rep(n, n),
    address = rep(vapply(stack, function(l) as.character(l[["address"]] %||% "0"), ""), n),
    mapping = rep(vapply(stack, function(l) l[["mapping"]][["filename"]] %||% "", ""), n),
    location_attributes = rep(
      vapply(stack, function(l) otlp_attributes_text(l[["attributes"]]), ""), n
    )
  )
}

# One row per observation of an OTLP file, from the oracle's canonical dump
# (`x`: a path, or a canonical dump already parsed; `...` goes to
# otlp_canonical()). Columns: resource, resource_schema_url, scope_name,
# scope_version, scope_attributes, scope_schema_url; profile (1-based over the
# file), type, unit, period_type, period_unit, period, time_unix_nano,
# duration_nano, profile_id, profile_attributes; sample (1-based over the
# file), observation (1-based in the sample); stack (function names leaf first
# joined by ";"), frames (a list of data frames, see otlp_stack_frames()),
# attributes; trace_id, span_id (NA: no link); value (1 for a timestamps-only
# sample), timestamp (nanoseconds since the epoch as text; NA: none).
# Nanosecond quantities are text, to keep them exact.
otlp_resolved_samples <- function(x, ...) {
  canon <- if (is.character(x)) otlp_canonical(x, ...) else x
  profiles <- list()
  samples <- list()
  for (rp in canon[["resourceProfiles"]]) {
    for (sp in rp[["scopeProfiles"]]) {
      for (p in sp[["profiles"]]) {
        profiles[[length(profiles) + 1L]] <- otlp_profile_columns(rp, sp, p)
        k <- length(profiles)
        samples <- c(samples, lapply(p[["samples"]], otlp_sample_columns, profile = k))
      }
    }
  }
  if (!length(samples)) {
    return(NULL)
  }
  head <- do.call(rbind, profiles)
  n <- vapply(samples, `[[`, 0L, "n")
  each <- function(name) rep(vapply(samples, `[[`, samples[[1]][[name]], name), n)
  out <- head[rep(vapply(samples, `[[`, 0L, "profile"), n), , drop = FALSE]
  out$profile <- each("profile")
  out$sample <- rep(seq_along(samples), n)
  out$observation <- sequence(n)
  out$stack <- each("stack")
  out$frames <- rep(lapply(samples, `[[`, "frames"), n)
  out$attributes <- each("attributes")
  out$trace_id <- each("trace_id")
  out$span_id <- each("span_id")
  out$value <- unlist(lapply(samples, `[[`, "values"))
  out$timestamp <- unlist(lapply(samples, `[[`, "times"))
  out$time <- otlp_nanos_between(out$time_unix_nano, out$timestamp) / 1e9
  rownames(out) <- NULL
  out
}

# to - from for nanosecond counts given as decimal text (up to 20 digits),
# as a double: exact while the difference is below 2^53 ns (104 days). NA
# where `to` is NA.
otlp_nanos_between <- function(from, to) {
  split <- function(x) {
    x <- formatC(x, width = 20, flag = "0")
    list(high = as.numeric(substr(x, 1L, 11L)), low = as.numeric(substr(x, 12L, 20L)))
  }
  a <- split(from)
  b <- split(ifelse(is.na(to), "0", to))
  out <- (b$high - a$high) * 1e9 + (b$low - a$low)
  out[is.na(to)] <- NA_real_
  out
}

# (Lists made from JSON are read with [[ ]]: `$` would match a prefix, e.g.
# p$period would find periodType when there is no period.)
otlp_profile_columns <- function(rp, sp, p) {
  text <- function(x) if (is.null(x)) "" else as.character(x)
  data.frame(
    resource = otlp_attributes_text(rp[["resource"]][["attributes"]]),
    resource_schema_url = text(rp[["schemaUrl"]]),
    scope_name = text(sp[["scope"]][["name"]]),
    scope_version = text(sp[["scope"]][["version"]]),
    scope_attributes = otlp_attributes_text(sp[["scope"]][["attributes"]]),
    scope_schema_url = text(sp[["schemaUrl"]]),
    profile = 0L,
    type = text(p[["sampleType"]][["type"]]),
    unit = text(p[["sampleType"]][["unit"]]),
    period_type = text(p[["periodType"]][["type"]]),
    period_unit = text(p[["periodType"]][["unit"]]),
    period = as.numeric(p[["period"]] %||% 0),
    time_unix_nano = p[["timeUnixNano"]] %||% "0",
    duration_nano = p[["durationNano"]] %||% "0",
    profile_id = p[["profileId"]] %||% NA_character_,
    profile_attributes = otlp_attributes_text(p[["attributes"]])
  )
}

otlp_sample_columns <- function(s, profile) {
  values <- as.numeric(unlist(s[["values"]]))
  times <- as.character(unlist(s[["timestampsUnixNano"]]))
  n <- max(length(values), length(times))
  if (!length(values)) values <- rep(1, n)
  if (!length(times)) times <- rep(NA_character_, n)
  if (length(values) != n || length(times) != n) {
    stop("a sample with ", length(values), " values but ", length(times), " timestamps")
  }
  frames <- otlp_stack_frames(s[["stack"]])
  list(
    profile = profile, n = n, stack = paste(frames$name, collapse = ";"), frames = frames,
    attributes = otlp_attributes_text(s[["attributes"]]),
    trace_id = s[["link"]][["traceId"]] %||% NA_character_,
    span_id = s[["link"]][["spanId"]] %||% NA_character_,
    values = values, times = times
  )
}

# ---- the same rows from a v2 profile -----------------------------------------

# One row per sample and sample type of a v2 profile (`x`, a dm), from its
# core tables only, in the columns of otlp_resolved_samples() that the core
# tables hold: source_id, sample_id, type, unit, value, stack (function names
# by depth, leaf first, joined by ";"), attributes (sample_labels as
# otlp_attributes_text() writes them: "key=value" for strings,
# "key=number [unit]" for numbers, sorted by key), trace_id, span_id (NA when
# the columns are absent) and time. Resources, scopes and the other extension
# data of OTLP are not core tables: compare those separately.
v2_observations <- function(x) {
  t <- dm::dm_get_tables(x)
  samples <- as.data.frame(t$samples)
  sv <- as.data.frame(t$sample_values)
  sl <- as.data.frame(t$sample_locations)
  sl <- sl[order(sl$sample_id, sl$depth), ]
  function_id <- t$locations$function_id[match(sl$location_id, t$locations$location_id)]
  names <- t$functions$name[match(function_id, t$functions$function_id)]
  names[is.na(names)] <- ""
  stack <- tapply(names, factor(sl$sample_id, samples$sample_id), paste, collapse = ";")
  stack[is.na(stack)] <- ""
  lab <- as.data.frame(t$sample_labels)
  unit <- ifelse(is.na(lab$num_unit) | lab$num_unit == "", "", paste0(" [", lab$num_unit, "]"))
  number <- paste0(lab$key, "=", trimws(formatC(lab$num, digits = 17, format = "g")), unit)
  text <- ifelse(is.na(lab$value), number, paste0(lab$key, "=", lab$value))
  text <- text[order(lab$sample_id, lab$key, text, method = "radix")]
  ids <- lab$sample_id[order(lab$sample_id, lab$key, text, method = "radix")]
  attributes <- tapply(text, factor(ids, samples$sample_id), paste, collapse = ", ")
  attributes[is.na(attributes)] <- ""
  k <- match(sv$sample_id, samples$sample_id)
  column <- function(name) if (name %in% names(samples)) samples[[name]][k] else rep(NA, length(k))
  data.frame(
    source_id = samples$source_id[k], sample_id = sv$sample_id, type = sv$type, unit = sv$unit,
    value = sv$value, stack = unname(stack[k]), attributes = unname(attributes[k]),
    trace_id = as.character(column("trace_id")), span_id = as.character(column("span_id")),
    time = as.numeric(column("time"))
  )
}

# The rows of a data frame in a fixed order, for comparing two readings of the
# same observations (columns: those to compare), row names dropped.
observation_columns <- c("type", "unit", "stack", "attributes", "trace_id", "span_id", "value")
observation_table <- function(df, columns = observation_columns) {
  df <- as.data.frame(df)[columns]
  df <- df[do.call(order, c(unname(as.list(df)), method = "radix")), , drop = FALSE]
  rownames(df) <- NULL
  df
}

# ---- totals ------------------------------------------------------------------

# Per function name: self (the value of the observations whose leaf frame it
# is) and total (of the observations whose stack has it anywhere, counted once
# each). `stacks`: names leaf first, joined by ";"; `values`: one per stack.
# Sorted by name (byte order).
function_totals <- function(stacks, values) {
  frames <- strsplit(stacks, ";", fixed = TRUE)
  leaf <- vapply(frames, function(f) if (length(f)) f[[1]] else "", "")
  self <- tapply(values, leaf, sum)
  unique_frames <- lapply(frames, unique)
  all_names <- unlist(unique_frames)
  total <- tapply(rep(values, lengths(unique_frames)), all_names, sum)
  name <- sort(union(names(total), names(self)), method = "radix")
  data.frame(
    name = name,
    self = unname(ifelse(is.na(self[name]), 0, self[name])),
    total = unname(ifelse(is.na(total[name]), 0, total[name]))
  )
}

# Values summed per stack (text), sorted by stack (byte order).
stack_totals <- function(stacks, values) {
  sums <- tapply(values, stacks, sum)
  name <- sort(names(sums), method = "radix")
  data.frame(stack = name, value = unname(as.numeric(sums[name])))
}

# ---- Pyroscope's expected outputs ----------------------------------------------

# Pyroscope's query result in its test "strprofile" JSON (the
# *-cpu.out.json / *-offcpu.out.json of shared/otlp/pyroscope): sample_types
# [{type, unit}], period, and samples, each with locations (leaf first:
# address, mapping "start-limit@offset file(build id)", lines
# "name[system name]@file:line") and values (one number per sample type,
# separated by spaces, as text). Returns list(sample_types, period, samples =
# data.frame(stack (names leaf first joined by ";"), frames (list of data
# frames), value (the first sample type's; a matrix column `values` has all))).
pyroscope_strprofile <- function(path) {
  x <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  types <- do.call(rbind, lapply(x[["sample_types"]], as.data.frame))
  frames <- lapply(x[["samples"]], function(s) pyroscope_frames(s[["locations"]]))
  values <- t(vapply(x[["samples"]], function(s) {
    as.numeric(strsplit(trimws(s[["values"]]), "[[:space:]]+")[[1]])
  }, numeric(nrow(types))))
  if (nrow(types) == 1L) values <- matrix(values, ncol = 1L)
  samples <- data.frame(
    stack = vapply(frames, function(f) paste(f$name, collapse = ";"), ""),
    value = values[, 1L]
  )
  samples$frames <- frames
  samples$values <- values
  list(sample_types = types, period = as.numeric(x[["period"]] %||% 0), samples = samples)
}

pyroscope_frames <- function(locations) {
  rows <- lapply(locations, function(loc) {
    lines <- unlist(loc[["lines"]])
    if (!length(lines)) lines <- "[]@:0"
    m <- regmatches(lines, regexec("^(.*)\\[([^]]*)\\]@(.*):(-?[0-9]+)$", lines))
    if (any(lengths(m) != 5L)) stop("unexpected strprofile line: ", lines[lengths(m) != 5L][[1]])
    data.frame(
      name = vapply(m, `[[`, "", 2L),
      system_name = vapply(m, `[[`, "", 3L),
      filename = vapply(m, `[[`, "", 4L),
      line = as.numeric(vapply(m, `[[`, "", 5L)),
      inlined = seq_along(lines) < length(lines),
      address = loc[["address"]] %||% "",
      mapping = loc[["mapping"]] %||% ""
    )
  })
  do.call(rbind, rows)
}

# Per-function totals of a strprofile file's first sample type.
pyroscope_function_totals <- function(path) {
  p <- pyroscope_strprofile(path)
  function_totals(p$samples$stack, p$samples$value)
}

# ---- pprof (Go's parser) and folded stacks -------------------------------------

# The samples of a pprof file as Go's parser reads them (tests/oracle
# pprof-dump, helper-oracle.R): data.frame(stack (function names leaf first,
# inlined frames expanded, joined by ";"), value (the first sample type's),
# values (matrix column, every sample type)) and the labels as text.
pprof_go_stacks <- function(path) {
  dump <- oracle_go_dumps(oracle_programs()[["dump"]], path)[[1]]
  if (length(dump) && startsWith(dump[[1]], "ERROR")) {
    stop("Go's parser refused ", path, ": ", dump[[1]])
  }
  starts <- grep("^sample [0-9]+$", dump)
  ends <- c(starts[-1] - 1L, length(dump))
  rows <- Map(function(s, e) {
    body <- dump[seq_len(e - s) + s]
    value_line <- grep("^ value", body, value = TRUE)
    values <- as.numeric(strsplit(sub("^ value ?", "", value_line), " ")[[1]])
    frames <- grep("^ frame ", body, value = TRUE)
    quoted <- regmatches(frames, regexec("^ frame \"((?:[^\"\\\\]|\\\\.)*)\"", frames, perl = TRUE))
    names <- vapply(quoted, function(m) m[[2]], "")
    labels <- grep("^ (num)?label ", body, value = TRUE)
    list(
      stack = paste(names, collapse = ";"), values = values,
      labels = paste(trimws(labels), collapse = ", ")
    )
  }, starts, ends)
  out <- data.frame(
    stack = vapply(rows, `[[`, "", "stack"),
    labels = vapply(rows, `[[`, "", "labels")
  )
  out$values <- do.call(rbind, lapply(rows, `[[`, "values"))
  out$value <- out$values[, 1L]
  out
}

# A folded-stacks file ("root;...;leaf count" per line, as async-profiler's
# collapsed output): data.frame(stack (names leaf first joined by ";", each
# frame's ":line_[kind]" suffix removed), stack_lines (leaf first, "name:line"),
# value).
folded_stacks <- function(path) {
  lines <- readLines(path, encoding = "UTF-8")
  lines <- lines[nzchar(lines)]
  split <- regmatches(lines, regexec("^(.*) ([0-9]+)$", lines))
  frames <- lapply(split, function(m) rev(strsplit(m[[2]], ";", fixed = TRUE)[[1]]))
  bare <- lapply(frames, function(f) sub("_\\[[^]]*\\]$", "", f))
  data.frame(
    stack = vapply(bare, function(f) paste(sub(":[0-9]+$", "", f), collapse = ";"), ""),
    stack_lines = vapply(bare, paste, "", collapse = ";"),
    value = as.numeric(vapply(split, `[[`, "", 3L))
  )
}
