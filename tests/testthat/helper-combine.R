# TEST HELPER (temporary): a v2 profile from an Rprof file, written in plain R so
# that the tests of combine_profiles() can run on real files before read_rprof()
# is available. Only what those tests need: one source per header line, one sample
# per stack line (value 1 of type "samples"), memory prefixes and "N#L" line
# references dropped, one function per frame name. Replaced by read_rprof() as
# soon as it is on main.
rprof_v2_for_tests <- function(path, source_uri = path) {
  lines <- readLines(path)
  is_header <- grepl("sample.interval=", lines, fixed = TRUE)
  segment <- cumsum(is_header)
  keep <- !is_header & !startsWith(lines, "#File ") & segment > 0
  stack_lines <- sub("^:[0-9]+:[0-9]+:[0-9]+:[0-9]+:", "", lines[keep])
  frames <- lapply(stack_lines, function(l) {
    l <- trimws(l)
    if (!nzchar(l)) return(character())
    parts <- strsplit(l, '" (?=("|[0-9]+#[0-9]+ "))', perl = TRUE)[[1]]
    parts <- sub('^([0-9]+#[0-9]+ )?"', "", parts)
    sub('"$', "", parts)
  })
  depth <- lengths(frames)
  names <- unlist(frames)
  fn_names <- unique(names)
  n <- length(frames)
  sample_source <- segment[keep]
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = seq_len(sum(is_header)), source_type = "rprof",
      source_uri = source_uri, source_timestamp = NA_real_
    ),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = sample_source),
    sample_values = tibble::tibble(
      sample_id = seq_len(n), type = "samples", unit = "count", value = 1
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), depth),
      depth = unlist(lapply(depth, seq_len)),
      location_id = match(names, fn_names)
    ),
    locations = tibble::tibble(
      location_id = seq_along(fn_names), function_id = seq_along(fn_names), line = 0L
    ),
    functions = tibble::tibble(
      function_id = seq_along(fn_names), name = fn_names, system_name = fn_names,
      filename = "", start_line = 0L
    )
  )
}

# `x` with meta rows `keys` (a named character vector) after `version`.
with_meta <- function(x, keys) {
  tables <- dm::dm_get_tables(x)
  tables$meta <- tibble::tibble(key = c("version", names(keys)), value = c("2.0", unname(keys)))
  do.call(new_profile_v2, tables)
}
