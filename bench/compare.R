# Simulation: profile_compare()'s statistics (R/compare-stats.R) judged against
# known rates. Not a test (it takes a minute); results go into bench/README.md,
# "Comparing runs".
#
#   R_LIBS=.rlib Rscript bench/compare.R [comparisons]
#
# A run is a column of Poisson counts of timer ticks, one per function, whose
# rates are `rates` times the run's factor (a busier or slower machine makes
# the whole run slower: a log-normal factor with sdlog `spread`, 0.15 = "15 %
# run-to-run variation"). One function (`rates[changed]`, 120 ticks a run) is
# `effect` times slower in x. Each scenario is `comparisons` comparisons; the
# tables give the share of comparisons in which any row is marked (A/A: should
# be at most 1 - level = 0.05), in which the changed row is marked "increase"
# (power), and in which another row is marked (a false mark beside a true
# one), each with its 95 % binomial interval (the simulation's error). The
# naive method beside it: Welch's t-test per function on the raw per-run
# counts, p-values adjusted by Benjamini-Hochberg.

library(profile)
args <- commandArgs(trailingOnly = TRUE)
comparisons <- if (length(args)) as.integer(args[[1]]) else 1000L
compare_rows <- utils::getFromNamespace("compare_rows", "profile")
rates <- c(400, 250, 120, 90, 60, 40, 25, 15, 8, 3)
changed <- 3L

simulate <- function(runs, spread, effect) {
  factor <- exp(stats::rnorm(sum(runs), 0, spread))
  is_x <- rep(c(TRUE, FALSE), runs)
  truth <- outer(rates, factor)
  truth[changed, is_x] <- truth[changed, is_x] * effect
  list(counts = matrix(stats::rpois(length(truth), truth), nrow(truth)), is_x = is_x)
}

naive_marks <- function(counts, is_x) {
  p <- apply(counts, 1L, function(row) {
    a <- row[is_x]
    b <- row[!is_x]
    if (stats::var(a) + stats::var(b) == 0) {
      return(1)
    }
    stats::t.test(a, b)$p.value
  })
  up <- rowMeans(counts[, is_x]) > rowMeans(counts[, !is_x])
  ifelse(stats::p.adjust(p, "BH") <= 0.05, ifelse(up, "increase", "decrease"), "none")
}

scenario <- function(runs, spread, effect, naive = TRUE) {
  marks <- replicate(comparisons, {
    run <- simulate(runs, spread, effect)
    ours <- compare_rows(run$counts, run$counts, run$is_x, counts = 1)$change
    theirs <- rep(NA, length(ours))
    if (naive && min(runs) > 1L) {
      theirs <- naive_marks(run$counts, run$is_x)
    }
    c(
      any = any(ours != "none"), found = ours[changed] == "increase",
      other = any(ours[-changed] != "none"),
      naive_any = any(theirs != "none"), naive_found = theirs[changed] == "increase"
    )
  })
  share <- rowMeans(marks)
  ci <- function(k) {
    if (is.na(k)) {
      return(NA_character_)
    }
    bounds <- stats::binom.test(round(k * comparisons), comparisons)$conf.int
    sprintf("%.3f (%.3f-%.3f)", k, bounds[1], bounds[2])
  }
  data.frame(
    runs = paste(runs, collapse = "+"), spread = spread, effect = effect,
    any_marked = ci(share[["any"]]), changed_found = ci(share[["found"]]),
    other_marked = ci(share[["other"]]),
    naive_any = ci(share[["naive_any"]]), naive_found = ci(share[["naive_found"]])
  )
}

set.seed(2026)
started <- proc.time()[["elapsed"]]
cat(sprintf(
  "%d comparisons per scenario; rates per run: %s; changed: %d ticks\n\n",
  comparisons, paste(rates, collapse = ", "), rates[changed]
))
aa <- rbind(
  scenario(c(5L, 5L), 0, 1),
  scenario(c(5L, 5L), 0.15, 1),
  scenario(c(3L, 3L), 0.15, 1),
  scenario(c(10L, 10L), 0.3, 1),
  scenario(c(1L, 3L), 0.15, 1),
  scenario(c(1L, 1L), 0, 1)
)
cat("A/A: no difference (any_marked should be at most 0.05)\n")
print(aa[, c("runs", "spread", "any_marked", "naive_any")], row.names = FALSE)
power <- do.call(rbind, lapply(c(1.1, 1.25, 1.5, 2), function(effect) {
  rbind(
    scenario(c(5L, 5L), 0.15, effect),
    scenario(c(3L, 3L), 0.15, effect),
    scenario(c(5L, 5L), 0, effect),
    scenario(c(1L, 1L), 0, effect)
  )
}))
cat("\nA/B: one function (120 ticks a run) `effect` times slower in x\n")
print(power[, c("runs", "spread", "effect", "changed_found", "other_marked", "naive_found")],
  row.names = FALSE
)
cat(sprintf(
  "\n%.0f s on %s, R %s, load %s\n",
  proc.time()[["elapsed"]] - started, Sys.info()[["nodename"]], getRversion(),
  paste(readLines("/proc/loadavg"), collapse = "")
))
