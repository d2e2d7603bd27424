# R CMD check runs the whole suite a second time, from the built tarball and
# as CRAN would (without NOT_CRAN), after dev/test.sh has run it. dev/check.sh
# sets PROFILE_CHECK_SECOND_RUN=true (unless PROFILE_CHECK_ALL_TESTS is set),
# and the tests judged by an outside program or a database, the slowest of
# that second run and the same tests against the same code as in dev/test.sh's
# run, skip there:
#
# - those that ask `go tool pprof` (skip_if_no_go()): CRAN's machines have
#   no Go, so they skip there anyway;
# - those that append to a database (local_db(), local_sqlite()): the
#   PostgreSQL ones skip on CRAN already; the SQLite ones are what CRAN runs,
#   and dev/test.sh runs them with the same files and the same RSQLite.
#
# Everything else (readers, writers, validation, hostile input, summaries,
# the verbs' own results, the view's data) still runs in both.
skip_in_check_second_run <- function(what) {
  if (identical(Sys.getenv("PROFILE_CHECK_SECOND_RUN"), "true")) {
    testthat::skip(paste0(
      what, ": run by dev/test.sh; R CMD check's second run leaves them out ",
      "(PROFILE_CHECK_SECOND_RUN, set by dev/check.sh)"
    ))
  }
}
