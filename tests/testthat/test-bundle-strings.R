# Character columns cross to Rust as R strings (each distinct one converted once);
# latin1 text must arrive as UTF-8 and invalid bytes as <xx>, as R itself writes them.
test_that("latin1 and invalid bytes in names reach the written file as R converts them", {
  latin1 <- "caf\xe9"
  Encoding(latin1) <- "latin1"
  invalid <- "bad\xff"
  Encoding(invalid) <- "bytes"
  p <- tiny_v2()
  fun <- dm::dm_zoom_to(p, functions)
  fun <- dplyr::mutate(fun,
    name = c(latin1, invalid, "g"), system_name = c(latin1, invalid, "g")
  )
  p <- dm::dm_update_zoomed(fun)
  expect_silent(validate_profile(p))

  path <- withr::local_tempfile(fileext = ".out")
  write_rprof(p, path)
  frames <- unlist(strsplit(readLines(path, encoding = "UTF-8")[-1], " "))
  frames <- unique(gsub('"', "", frames))
  # what R's own conversions give: enc2utf8() for latin1, iconv(sub = "byte")
  # for bytes that are not UTF-8
  expect_true(enc2utf8(latin1) %in% frames)
  expect_true(iconv("bad\xff", "UTF-8", "UTF-8", sub = "byte") %in% frames)
  expect_false(any(grepl("\xff", frames, useBytes = TRUE)))
})

test_that("a profile with many distinct repeated strings survives the trip to Rust", {
  n <- 40L # more distinct strings than the short list of recent ones
  p <- tiny_v2()
  tables <- dm::dm_get_tables(p)
  names <- sprintf("fun%02d", seq_len(n))
  samples <- tibble::tibble(sample_id = seq_len(3 * n), source_id = 1L)
  values <- tibble::tibble(
    sample_id = seq_len(3 * n), type = "samples", unit = "count", value = 1
  )
  locs <- tibble::tibble(sample_id = seq_len(3 * n), depth = 1L, location_id = rep(seq_len(n), 3))
  q <- new_profile_v2(
    meta = tables$meta, sources = tables$sources, samples = samples,
    sample_values = values, sample_locations = locs,
    locations = tibble::tibble(location_id = seq_len(n), function_id = seq_len(n), line = 0L),
    functions = tibble::tibble(
      function_id = seq_len(n), name = names, system_name = names,
      filename = "", start_line = 0L
    )
  )
  path <- withr::local_tempfile(fileext = ".out")
  write_rprof(q, path)
  # one frame per line, the functions in order three times over
  expect_identical(trimws(gsub('"', "", readLines(path)[-1])), rep(names, 3))
})
