# R/condition-text.R builds an error's message once, in plain R where it can.
# The oracle is cli::cli_abort() itself: for templates of every shape the
# package uses and values with what upsets wrapping (runs of spaces, newlines,
# tabs, sentence ends, braces, percent signs, long words, non-ASCII text), at
# several widths, with and without Unicode bullets, an error raised by
# abort_profile() has cli_abort()'s message, body, conditionMessage() and
# printed text.

cli_abort_error <- function(message, values) {
  env <- list2env(values, parent = baseenv())
  tryCatch(
    cli::cli_abort(message, .envir = env, class = "profile_error", call = NULL),
    error = identity
  )
}

abort_profile_error <- function(message, values) {
  args <- c(list("format", message, call = NULL), values[setdiff(names(values), "detail")])
  args <- c(args, list(detail = values$detail))
  tryCatch(do.call(profile:::abort_profile, args), error = identity)
}

test_that("an error's text is cli_abort()'s, made once", {
  pieces <- c(
    "a", "bb", "word", "/tmp/x y/z.prof", "%s", "%", "{", "}", "{x}", " ", "  ", "\n", "\t",
    ".", ". ", "!", "?", "\u00e9", "\u2716", "\u00a0", "\u4e2d\u6587", "`", "\"", "'", "\\",
    strrep("long", 30), "byte offset 13:", "(Profile.duration_nanos)", "\001"
  )
  random_text <- function() {
    paste(sample(pieces, sample(0:25, 1), TRUE), collapse = sample(c("", " "), 1))
  }
  templates <- list(
    "Can't read the pprof file {.file {path}}.",
    c(
      "{.arg x} must be {.code TRUE} or {.code FALSE}, {.fn new_profile_v2} {.cls dm}",
      i = "{.field {t}} and {.val {t}}"
    ),
    c(
      "A header without fields, long enough to be wrapped at the console width of eighty",
      "!" = "{t}", v = "{t}", "*" = "{.arg {t}}", ">" = "{.code {t}}", "plain {t}"
    ),
    c("The {.field {t}} of {.file {path}}:", i = "{t}"),
    # fields that only cli fills
    c("{.arg x} is {.obj_type_friendly {t}}.", i = "{cli::qty(2)}Value{?s} {.val {v}}"),
    "Escaped {{braces}} and {.field {v}}"
  )
  withr::local_seed(20240531)
  withr::local_options(cli.num_colors = 1)
  plain <- 0L
  for (k in seq_len(400)) {
    template <- templates[[sample(length(templates), 1)]]
    values <- list(
      path = random_text(), t = random_text(),
      v = if (runif(1) < 0.5) c("a", "b c") else random_text(),
      detail = if (runif(1) < 0.7) random_text()
    )
    withr::local_options(width = sample(c(20, 40, 80, 200), 1), cli.unicode = runif(1) < 0.5)
    with_detail <- if (is.null(values$detail)) template else c(template, x = "{detail}")
    expected <- cli_abort_error(with_detail, values)
    got <- abort_profile_error(template, values)
    label <- paste(deparse(list(template = template, values = values)), collapse = "\n")
    expect_identical(conditionMessage(got), conditionMessage(expected), label = label)
    expect_identical(got$message, expected$message, label = label)
    expect_identical(got$body, expected$body, label = label)
    expect_identical(
      rlang::cnd_message(got, prefix = TRUE), rlang::cnd_message(expected, prefix = TRUE),
      label = label
    )
    plain <- plain + !is.null(profile:::plain_condition_text(with_detail, values))
  }
  # both ways were taken, each many times
  expect_gt(plain, 100)
  expect_lt(plain, 350)
})

test_that("conditionMessage() follows a message changed after the error was raised", {
  err <- tryCatch(read_rprof(tempfile()), error = identity)
  expect_match(conditionMessage(err), "does not exist", fixed = TRUE)
  err$message <- "Changed."
  expect_identical(conditionMessage(err), "Changed.")
})

test_that("with colours, the text is cli's, with its colours", {
  withr::local_options(cli.num_colors = 256)
  values <- list(path = "a b.out", detail = "line 2: no frames")
  template <- "Can't read the Rprof file {.file {path}}."
  expect_null(profile:::plain_condition_text(c(template, x = "{detail}"), values))
  got <- abort_profile_error(template, values)
  expected <- cli_abort_error(c(template, x = "{detail}"), values)
  expect_identical(conditionMessage(got), conditionMessage(expected))
  expect_true(cli::ansi_has_any(conditionMessage(got)))
})
