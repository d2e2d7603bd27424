# The time of a refused read, of two builds of the package in the same run
# ("before" and "after" a change, each installed into a library of its own):
#
# - one refused file: read_pprof() of 1 KB of random bytes, caught by
#   tryCatch(); each call timed alone, the median of `calls` (200) calls per
#   process, and the CPU time (user + system) of those calls, per call;
# - a folder of which some files are bad: 10 good pprof files (the samples of
#   inst/samples/pprof, twice) and 10 bad ones (random bytes, truncated
#   copies), each read with the errors caught, as a user reading a folder
#   would; the median of 20 readings of the folder.
#
# Each round runs one R process per build, in turns (before, after, before,
# ...); the medians over rounds are reported, with the ratio after / before.
# From the package root:
#
#   R CMD INSTALL -l /tmp/lib-before <main> ; R CMD INSTALL -l .rlib .
#   Rscript bench/refused-read.R /tmp/lib-before .rlib [rounds]
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: Rscript bench/refused-read.R LIB_BEFORE LIB_AFTER [rounds]")
libs <- c(before = args[[1]], after = args[[2]])
rounds <- if (length(args) > 2) as.integer(args[[3]]) else 5L
load_average <- function() {
  if (file.exists("/proc/loadavg")) strsplit(readLines("/proc/loadavg"), " ")[[1]][[1]] else NA
}
load_before <- load_average()

# The inputs, the same for both builds.
dir <- tempfile("refused-read")
dir.create(dir)
random_bytes <- function(n, seed) {
  set.seed(seed)
  as.raw(sample.int(256L, n, replace = TRUE) - 1L)
}
writeBin(random_bytes(1024, 1), file.path(dir, "random.pb"))
folder <- file.path(dir, "folder")
dir.create(folder)
samples <- list.files(file.path(libs[["after"]], "profile", "samples", "pprof"), full.names = TRUE)
for (i in 1:2) {
  file.copy(samples, file.path(folder, paste0(i, "-", basename(samples))))
}
for (i in 1:5) {
  writeBin(random_bytes(1024 * i, i), file.path(folder, sprintf("bad-random-%d.pb", i)))
  whole <- readBin(samples[[i]], "raw", file.size(samples[[i]]))
  writeBin(whole[seq_len(length(whole) %/% 2)], file.path(folder, sprintf("bad-truncated-%d.pb.gz", i)))
}

child <- tempfile(fileext = ".R")
writeLines(c(
  "args <- commandArgs(TRUE)",
  "suppressPackageStartupMessages(library(profile, lib.loc = args[[1]]))",
  "dir <- args[[2]]",
  "f <- file.path(dir, 'random.pb')",
  "refuse <- function() tryCatch(read_pprof(f), error = function(e) e)",
  "stopifnot(inherits(refuse(), 'profile_error_format'))",
  "for (i in 1:20) refuse()",
  "calls <- 200L",
  "each <- numeric(calls)",
  "cpu0 <- proc.time()",
  "for (i in seq_len(calls)) {",
  "  t0 <- bench::hires_time(); refuse(); each[[i]] <- bench::hires_time() - t0",
  "}",
  "cpu <- proc.time() - cpu0",
  "cat('refused read\\t', median(each), '\\t', (cpu[['user.self']] + cpu[['sys.self']]) / calls, '\\n', sep = '')",
  "files <- list.files(file.path(dir, 'folder'), full.names = TRUE)",
  "read_folder <- function() lapply(files, function(p) tryCatch(read_pprof(p), profile_error = function(e) NULL))",
  "stopifnot(sum(vapply(read_folder(), is.null, NA)) == 10L)",
  "t <- replicate(20, { st <- system.time(read_folder()); c(st[['elapsed']], st[['user.self']] + st[['sys.self']]) })",
  "cat('folder of 20 files, 10 bad\\t', median(t[1, ]), '\\t', median(t[2, ]), '\\n', sep = '')"
), child)

ops <- c("refused read", "folder of 20 files, 10 bad")
times <- array(NA_real_, c(length(ops), 2, rounds, 2), list(ops, names(libs), NULL, c("elapsed", "cpu")))
for (r in seq_len(rounds)) {
  for (b in names(libs)) {
    out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", child, shQuote(libs[[b]]), shQuote(dir)), stdout = TRUE)
    for (f in strsplit(out, "\t", fixed = TRUE)) times[f[[1]], b, r, ] <- as.numeric(f[2:3])
  }
}
med <- apply(times, c(1, 2, 4), median) * 1000
res <- data.frame(
  operation = ops,
  before_ms = signif(med[, "before", "elapsed"], 3),
  after_ms = signif(med[, "after", "elapsed"], 3),
  ratio = round(med[, "after", "elapsed"] / med[, "before", "elapsed"], 3),
  before_cpu_ms = signif(med[, "before", "cpu"], 3),
  after_cpu_ms = signif(med[, "after", "cpu"], 3),
  cpu_ratio = round(med[, "after", "cpu"] / med[, "before", "cpu"], 3),
  row.names = NULL
)
print(res, row.names = FALSE)
cat(sprintf(
  "\n%s; %d rounds; load average (1 min) %s before the run, %s after\n",
  R.version.string, rounds, load_before, load_average()
))
