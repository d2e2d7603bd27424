# Read and write times of two builds of the package in the same run: "before"
# and "after" a change, each installed into a library of its own. Each round
# runs one R process per build (in turns: before, after, before, ...), which
# times every operation `reps` times; the medians over rounds are reported,
# with their ratio after / before: elapsed time, and CPU time (user + system,
# all threads), which a loaded machine disturbs less. From the package root:
#
#   R CMD INSTALL -l /tmp/lib-before <main> ; R CMD INSTALL -l .rlib .
#   Rscript bench/before-after.R /tmp/lib-before .rlib [rounds]
#
# Inputs: bench/data/rprof-30k.out, rprof-300k.out (bench/rprof-data.R) and
# rprof-scale-1000000.out (bench/scale-inputs.R); the 1e6 file gzip-compressed
# and the 300k one written as pprof are made here.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: Rscript bench/before-after.R LIB_BEFORE LIB_AFTER [rounds]")
libs <- c(before = args[[1]], after = args[[2]])
rounds <- if (length(args) > 2) as.integer(args[[3]]) else 5L
reps <- 5L

data <- normalizePath(file.path("bench", "data"))
inputs <- file.path(data, c("rprof-30k.out", "rprof-300k.out", "rprof-scale-1000000.out"))
if (!all(file.exists(inputs))) stop("run bench/rprof-data.R and bench/scale-inputs.R first")
gz <- file.path(data, "rprof-scale-1000000.out.gz")
if (!file.exists(gz)) system2("gzip", c("-k", "-6", shQuote(inputs[[3]])))
pb <- file.path(data, "rprof-300k.pb.gz")

# The operations, timed in the child: name = code (uses `d`, the data directory).
ops <- c(
  "read_rprof 30k" = "read_rprof(file.path(d, 'rprof-30k.out'))",
  "read_rprof 300k" = "read_rprof(file.path(d, 'rprof-300k.out'))",
  "read_rprof 1e6" = "read_rprof(file.path(d, 'rprof-scale-1000000.out'))",
  "read_rprof 1e6 gz" = "read_rprof(file.path(d, 'rprof-scale-1000000.out.gz'))",
  "write_rprof 300k" = "write_rprof(x300k, out)",
  "read_pprof cpu (sample)" = "read_pprof(system.file('samples/pprof/cpu.pb.gz', package = 'profile'))",
  "read_pprof 300k as pprof" = "read_pprof(file.path(d, 'rprof-300k.pb.gz'))",
  "write_pprof 300k" = "write_pprof(x300k, out_pb)",
  "validate_profile 300k" = "validate_profile(x300k)",
  "profile_summary 300k" = "profile_summary(x300k)",
  "write_folded 300k" = "write_folded(x300k, out_folded)",
  "write_speedscope 300k" = "write_speedscope(x300k, out_json)",
  "combine_profiles 300k x 2" = "combine_profiles(x300k, x300k)"
)

child <- tempfile(fileext = ".R")
writeLines(c(
  "args <- commandArgs(TRUE)",
  "suppressPackageStartupMessages(library(profile, lib.loc = args[[1]]))",
  "d <- args[[2]]; reps <- as.integer(args[[3]])",
  "out <- tempfile(fileext = '.out'); out_pb <- tempfile(fileext = '.pb.gz')",
  "out_folded <- tempfile(fileext = '.folded'); out_json <- tempfile(fileext = '.json')",
  "x300k <- read_rprof(file.path(d, 'rprof-300k.out'))",
  "if (!file.exists(file.path(d, 'rprof-300k.pb.gz'))) write_pprof(x300k, file.path(d, 'rprof-300k.pb.gz'))",
  sprintf("ops <- %s", paste(deparse(ops), collapse = "")),
  "for (op in names(ops)) {",
  "  e <- parse(text = ops[[op]])[[1]]",
  "  invisible(eval(e))",
  "  t <- replicate(reps, { gc(); st <- system.time(eval(e)); c(st[['elapsed']], st[['user.self']] + st[['sys.self']]) })",
  "  cat(op, '\\t', median(t[1, ]), '\\t', median(t[2, ]), '\\n', sep = '')",
  "}"
), child)

times <- array(NA_real_, c(length(ops), 2, rounds, 2), list(names(ops), names(libs), NULL, c("elapsed", "cpu")))
for (r in seq_len(rounds)) {
  for (b in names(libs)) {
    out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", child, shQuote(libs[[b]]), shQuote(data), reps), stdout = TRUE)
    fields <- strsplit(out, "\t", fixed = TRUE)
    for (f in fields) times[f[[1]], b, r, ] <- as.numeric(f[2:3])
  }
}
med <- apply(times, c(1, 2, 4), median) * 1000
res <- data.frame(
  operation = names(ops),
  before_ms = round(med[, "before", "elapsed"], 1),
  after_ms = round(med[, "after", "elapsed"], 1),
  ratio = round(med[, "after", "elapsed"] / med[, "before", "elapsed"], 3),
  before_cpu_ms = round(med[, "before", "cpu"], 1),
  after_cpu_ms = round(med[, "after", "cpu"], 1),
  cpu_ratio = round(med[, "after", "cpu"] / med[, "before", "cpu"], 3),
  row.names = NULL
)
cat(sprintf("%d rounds x %d runs, medians; load %s\n", rounds, reps, paste(readLines("/proc/loadavg"), collapse = "")))
print(res, row.names = FALSE)
