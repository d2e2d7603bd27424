# A small hand-built v2 profile for model tests (real files are used elsewhere).
tiny_v2 <- function() {
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1L, source_type = "manual", source_uri = "tiny",
      source_timestamp = NA_real_
    ),
    samples = tibble::tibble(sample_id = 1:3, source_id = 1L),
    sample_values = tibble::tibble(sample_id = 1:3, type = "samples", unit = "count", value = 1),
    sample_locations = tibble::tibble(
      sample_id = c(1L, 1L, 2L, 3L, 3L, 3L),
      depth = c(1L, 2L, 1L, 1L, 2L, 3L),
      location_id = c(1L, 2L, 2L, 3L, 1L, 2L)
    ),
    locations = tibble::tibble(location_id = 1:3, function_id = c(1L, 2L, 3L), line = 0L),
    functions = tibble::tibble(
      function_id = 1:3, name = c("f", "main", "g"), system_name = c("f", "main", "g"),
      filename = "", start_line = 0L
    )
  )
}

sample_path <- function(...) {
  system.file("samples", ..., package = "profile", mustWork = TRUE)
}

# A changed copy of `v` (its first element set to "x"), made in a function so
# that the copy is taken in the middle of a gctorture() test.
duplicate_and_change <- function(v) {
  v[1] <- "x"
  v
}
