# Compositions as a user composes them: pipelines drawn at random from the
# package's functions (a source, then combine_profiles(), the verbs,
# profile_diff(), profile_window(), a SQLite database, each writer followed by
# its reader), with invariants checked after every step. The generator and
# the checks are in helper-compose.R, helper-compose-steps.R and
# helper-compose-io.R; a failing pipeline is printed as the R code that
# reproduces it. Defects that issue 32 gives to another part, and those found
# and reported but not fixed yet, are expected failures, counted and named in
# a skip.

skip_if_not_installed("jsonlite")
skip_if_not_installed("RSQLite")
skip_if_not_installed("dbplyr")
# (the same pipelines, of the same seed, as dev/test.sh's run: they append to
# SQLite, as the database tests that the second run leaves out)
skip_in_check_second_run("the composition pipelines")

test_that("pipelines of readers, combinations, verbs, databases, writers keep their invariants", {
  seed <- compose_seed()
  count <- compose_pipeline_count()
  sources <- compose_sources()
  known <- character()
  for (i in seq_len(count)) {
    run <- compose_run_pipeline(i, sources, seed)
    is_known <- vapply(run$problems, compose_is_known, TRUE)
    known <- c(known, unique(vapply(run$problems[is_known], `[[`, "", "known")))
    expect(all(is_known), compose_report(i, seed, run))
  }
  if (length(known)) {
    counts <- table(known)
    skip(paste0(
      "expected failures (owned by other parts of issue 32, or reported): ",
      paste(sprintf("%s in %d pipelines", names(counts), counts), collapse = "; ")
    ))
  }
})
