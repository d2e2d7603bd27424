# Runs the testthat suite against the installed package and prints one summary line.
library(testthat)
library(profile)
# As devtools::test() does: the heavy tests (decompression bombs, 50 MB files)
# run here and are skipped only on CRAN.
Sys.setenv(NOT_CRAN = "true")
# every failure of the run shown, not the first ten
options(testthat.progress.max_fails = Inf)
results <- test_dir(
  "tests/testthat",
  package = "profile",
  load_package = "installed",
  reporter = ProgressReporter$new(show_praise = FALSE),
  stop_on_failure = FALSE
)
res <- as.data.frame(results)
# Where the suite's time went: the slowest test files (elapsed seconds, and
# the share of the run), so that every log shows them.
per_file <- sort(tapply(res$real, res$file, sum), decreasing = TRUE)
cat(sprintf(
  "\ntestthat: %.0f s in %d files; the slowest:\n", sum(per_file), length(per_file)
))
slowest <- utils::head(per_file, 15)
cat(sprintf(
  "  %-32s %7.1f s %5.1f %%\n", names(slowest), slowest, 100 * slowest / sum(per_file)
), sep = "")
# The failures again, last: a CI log keeps only its tail, and the progress
# reporter prints them where the failing file ran.
failures <- unlist(lapply(results, function(test) {
  lapply(
    Filter(function(e) inherits(e, c("expectation_failure", "expectation_error")), test$results),
    function(e) sprintf("-- %s: %s\n%s", test$file, test$test, substr(conditionMessage(e), 1, 3000))
  )
}))
if (length(failures)) cat("\nthe failures:\n", paste(failures, collapse = "\n\n"), "\n", sep = "")
failed <- sum(res$failed) + sum(res$error)
passed <- sum(res$nb) - sum(res$failed) - sum(res$skipped)
cat(sprintf("\ntestthat: %d passed, %d failed, %d skipped\n", passed, failed, sum(res$skipped)))
if (failed > 0) quit(status = 1)
