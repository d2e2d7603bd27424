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

# TEST HELPER (temporary): a small pprof-like heap profile with the extension
# tables (sample types, labels, a mapping, an inlined frame), until read_pprof() is
# on main.
heap_like_v2 <- function() {
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 3L, source_type = "pprof", source_uri = "heap.pb.gz",
      source_timestamp = 1.7e9, period_type = "space", period_unit = "bytes",
      period = 524288, time_nanos = "1700000000123456789",
      default_sample_type = "inuse_space"
    ),
    samples = tibble::tibble(sample_id = 5:6, source_id = 3L),
    sample_values = tibble::tibble(
      sample_id = rep(5:6, each = 2), type = rep(c("alloc_space", "inuse_space"), 2),
      unit = "bytes", value = c(1024, 0, 4096, 0)
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(5:6, each = 3), depth = rep(1:3, 2), location_id = rep(c(30L, 20L, 10L), 2)
    ),
    locations = tibble::tibble(
      location_id = c(30L, 20L, 10L), function_id = c(2L, 3L, 1L), line = c(21L, 31L, 11L),
      address = c("0x401000", "0x401000", "0x402000"), mapping_id = 9L,
      is_folded = FALSE, column = 0L, inlined_into = c(20L, NA, NA)
    ),
    functions = tibble::tibble(
      function_id = 1:3, name = c("main.main", "main.inner", "main.outer"),
      system_name = c("main.main", "main.inner", "main.outer"),
      filename = "main.go", start_line = c(10L, 20L, 30L)
    ),
    sample_types = tibble::tibble(
      source_id = 3L, type = c("alloc_space", "inuse_space"), unit = "bytes"
    ),
    sample_labels = tibble::tibble(
      sample_id = 5:6, key = "bytes", value = NA_character_, num = c(1024, 4096),
      num_unit = "bytes"
    ),
    mappings = tibble::tibble(
      mapping_id = 9L, source_id = 3L, memory_start = "0x400000",
      memory_limit = "0x500000", file_offset = "0x0", filename = "/tmp/prog",
      build_id = "abc", has_functions = TRUE, has_filenames = TRUE,
      has_line_numbers = TRUE, has_inline_frames = TRUE
    )
  )
}

# `x` with meta rows `keys` (a named character vector) after `version`.
with_meta <- function(x, keys) {
  tables <- dm::dm_get_tables(x)
  tables$meta <- tibble::tibble(key = c("version", names(keys)), value = c("2.0", unname(keys)))
  do.call(new_profile_v2, tables)
}
