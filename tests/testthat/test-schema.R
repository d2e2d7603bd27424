# The limits are defined once, in the Rust core, and reach R through
# ffi_profile_schema(); the help page ?profile_error states them in words.

test_that("the default max_size and max_memory are the core's, unless the options say otherwise", {
  limits <- v2_schema()$limits
  defaults <- list(max_size = default_max_size, max_memory = default_max_memory)
  for (name in names(defaults)) {
    option <- paste0("profile.", name)
    withr::with_options(stats::setNames(list(NULL), option), {
      expect_identical(defaults[[name]](), limits[[name]])
    })
    withr::with_options(stats::setNames(list(123), option), {
      expect_identical(defaults[[name]](), 123)
    })
  }
  withr::with_options(list(profile.max_memory = Inf), {
    expect_identical(default_max_memory(), 2^62)
  })
  expect_identical(formals(read_rprof)$max_size, quote(default_max_size()))
  expect_identical(formals(read_pprof)$max_size, quote(default_max_size()))
})

test_that("?profile_error states the core's limits", {
  limits <- v2_schema()$limits
  rd <- tools::Rd_db("profile")[["profile_error.Rd"]]
  skip_if(is.null(rd), "no installed help")
  text <- gsub("\\s+", " ", paste(capture.output(tools::Rd2txt(rd)), collapse = " "))
  has <- function(words) expect_true(grepl(words, text, fixed = TRUE), label = words)
  has(sprintf("else %g GiB", limits$max_size / 2^30))
  has(sprintf("(else %g GiB) bounds the memory a read", limits$max_memory / 2^30))
  has(sprintf("from their first %g KiB", limits$sniff_bytes / 2^10))
  has(sprintf("more than %g times the size of the file", limits$eager_ratio))
  has(sprintf("more than %g MiB", limits$eager_min_bytes / 2^20))
  has(
    sprintf("at most %s frames", format(limits$max_stack_depth, big.mark = " ", scientific = FALSE))
  )
  has(sprintf(
    "%g frames per byte of the file (or 2^%g frames in all",
    limits$pprof_frames_per_byte, log2(limits$pprof_min_max_frames)
  ))
  has(sprintf("at most 2^%g sample values", log2(limits$pprof_max_values)))
})
