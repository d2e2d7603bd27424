# The statistics of profile_compare() (R/compare-stats.R), through
# profile_compare() on profiles of known counts: judged by stats' own tests
# (binom.test(), t.test()) and by runs simulated with a known change. How often
# they mark (error rates, power) is measured in bench/compare.R.

test_that("one run a side: the exact test of two Poisson counts, as binom.test() gives it", {
  counts <- cbind(x = c(60, 40, 12, 5), base = c(30, 44, 9, 0))
  x <- counts_profile(counts[, "x", drop = FALSE])
  base <- counts_profile(counts[, "base", drop = FALSE])
  cmp <- profile_compare(x, base)
  expect_identical(attr(cmp, "method"), "sampling")
  p <- vapply(seq_len(4), function(i) {
    stats::binom.test(counts[i, "x"], sum(counts[i, ]), 0.5)$p.value
  }, 0)
  adjusted <- stats::p.adjust(p, "BH")
  names <- paste0("f", 1:4)
  expect_equal(cmp$p_value[match(names, cmp$name)], adjusted, tolerance = 1e-12)
  # an unmarked row's interval: Clopper-Pearson's for p, as N (2p - 1)
  ci <- stats::binom.test(40, 84, conf.level = 0.95)$conf.int
  f2 <- row_of(cmp, "f2")
  expect_identical(f2$change, "none")
  expect_equal(c(f2$lower, f2$upper), 84 * (2 * as.numeric(ci) - 1), tolerance = 1e-9)
  # f1: 60 against 30 is marked, its interval at the level adjusted for the
  # one row selected of four
  f1 <- row_of(cmp, "f1")
  expect_identical(f1$change, "increase")
  ci <- stats::binom.test(60, 90, conf.level = 1 - 1 * 0.05 / 4)$conf.int
  expect_equal(c(f1$lower, f1$upper), 90 * (2 * as.numeric(ci) - 1), tolerance = 1e-9)
  expect_equal(f1$ratio, 2)
  expect_match(format_header(cmp), "run-to-run noise is not accounted for", all = FALSE)
})

test_that("one run a side of bytes: two compound Poisson sums", {
  counts <- cbind(c(3, 2), c(2, 2))
  values <- list(c(100, 200, 300, 1000, 1000), c(100, 100, 1000, 1000))
  x <- counts_profile(counts[, 1, drop = FALSE], values = values[1])
  base <- counts_profile(counts[, 2, drop = FALSE], values = values[2])
  cmp <- profile_compare(x, base)
  expect_identical(attr(cmp, "unit"), "bytes")
  f1 <- row_of(cmp, "f1")
  expect_identical(c(f1$x, f1$base, f1$delta), c(600, 200, 400))
  z <- 400 / sqrt(100^2 + 200^2 + 300^2 + 100^2 + 100^2)
  expect_equal(f1$p_value, stats::p.adjust(c(2 * stats::pnorm(-z), 1), "BH")[1])
})

test_that("the totals of several runs are Welch's t-test of t.test()", {
  set.seed(35)
  counts <- matrix(stats::rpois(4 * 7, c(200, 100, 50, 20)), 4)
  counts[, 1:4] <- counts[, 1:4] * 2 # x's runs on a slow, noisy machine
  counts[, 2] <- counts[, 2] * 2
  x <- counts_profile(counts[, 1:4])
  base <- counts_profile(counts[, 5:7])
  cmp <- profile_compare(x, base)
  totals <- attr(cmp, "totals")
  welch <- stats::t.test(colSums(counts[, 1:4]), colSums(counts[, 5:7]))
  expect_equal(totals$p_value, welch$p.value, tolerance = 1e-9)
  expect_equal(c(totals$lower, totals$upper), as.numeric(welch$conf.int), tolerance = 1e-9)
  # every function twice as fast is the machine: the rows do not change
  expect_equal(attr(cmp, "speed"), 2.5, tolerance = 0.1)
  expect_true(all(cmp$change == "none"))
})

test_that("a function slower in every run is marked, the others are not", {
  set.seed(7)
  rates <- c(f1 = 300, f2 = 120, f3 = 80, f4 = 40, f5 = 20)
  speed <- exp(stats::rnorm(10, 0, 0.15))
  truth <- outer(rates, speed)
  truth["f2", 1:5] <- truth["f2", 1:5] * 2
  counts <- matrix(stats::rpois(length(truth), truth), nrow(truth))
  cmp <- profile_compare(counts_profile(counts[, 1:5]), counts_profile(counts[, 6:10]))
  expect_identical(attr(cmp, "method"), "runs")
  expect_identical(cmp$name[cmp$change != "none"], "f2")
  expect_identical(row_of(cmp, "f2")$change, "increase")
  expect_identical(cmp$name[[1]], "f2")
  # threshold: a change smaller than asked is not marked
  expect_true(all(profile_compare(counts_profile(counts[, 1:5]), counts_profile(counts[, 6:10]),
    threshold = 1.5
  )$change == "none"))
})

test_that("total values: the run factors come from the self values, which do not nest", {
  set.seed(11)
  rates <- c(f1 = 300, f2 = 120, f3 = 80, f4 = 40, f5 = 20)
  truth <- outer(rates, exp(stats::rnorm(8, 0, 0.1)))
  truth["f2", 1:4] <- truth["f2", 1:4] * 2
  counts <- matrix(stats::rpois(length(truth), truth), nrow(truth))
  cmp <- profile_compare(counts_profile(counts[, 1:4]), counts_profile(counts[, 5:8]),
    value = "total"
  )
  # main holds every sample: its total changed with f2's, which no run
  # factor may take out (that would show the others as decreases)
  expect_identical(sort(cmp$name[cmp$change != "none"]), c("f2", "main"))
  expect_true(all(cmp$change[cmp$change != "none"] == "increase"))
})

test_that("bytes of several runs: a function allocating twice as much is marked", {
  set.seed(5)
  sizes <- c(f1 = 4096, f2 = 65536, f3 = 512, f4 = 1e6)
  rates <- c(f1 = 200, f2 = 60, f3 = 300, f4 = 10)
  runs <- lapply(1:8, function(r) {
    n <- stats::rpois(4, rates * if (r <= 4) c(1, 2, 1, 1) else 1)
    list(counts = n, values = unlist(lapply(1:4, function(i) {
      stats::rexp(n[[i]], 1 / sizes[[i]])
    })))
  })
  counts <- sapply(runs, `[[`, "counts")
  profile <- function(r) counts_profile(counts[, r], values = lapply(runs[r], `[[`, "values"))
  cmp <- profile_compare(profile(1:4), profile(5:8))
  expect_identical(attr(cmp, "unit"), "bytes")
  expect_identical(attr(cmp, "method"), "runs")
  expect_identical(cmp$name[cmp$change != "none"], "f2")
  expect_identical(profile_compare(profile(1:4), profile(1:4))$change, rep("none", 4))
})
