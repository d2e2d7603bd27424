# Benchmark of read_rprofmem() against profmem::readRprofmem() on an
# Rprofmem() file of 10^6 lines (the real recording of
# inst/samples/rprofmem/alloc.out.gz, its lines repeated), and the memory
# the profile holds per allocation. From the package root:
#
#   R CMD INSTALL -l .rlib . && R_LIBS=.rlib Rscript bench/rprofmem.R [LINES]

args <- commandArgs(trailingOnly = TRUE)
lines_wanted <- if (length(args)) as.numeric(args[[1]]) else 1e6

suppressPackageStartupMessages(library(profile))
sample <- readLines(system.file("samples", "rprofmem", "alloc.out.gz", package = "profile"))
path <- file.path(tempdir(), "rprofmem-bench.out")
writeLines(rep_len(sample, lines_wanted), path)
cat(sprintf(
  "%s: %s lines, %s bytes (%.1f %% new pages)\n", basename(path),
  format(lines_wanted, big.mark = ","), format(file.size(path), big.mark = ","),
  100 * mean(startsWith(sample, "new page"))
))

# Wall-clock and CPU (user + system) time of each run, in ms; medians.
timed <- function(expr, n) {
  expr <- substitute(expr)
  env <- parent.frame()
  t <- vapply(seq_len(n), function(i) {
    st <- system.time(eval(expr, env), gcFirst = TRUE)
    c(wall = st[["elapsed"]], cpu = st[["user.self"]] + st[["sys.self"]])
  }, numeric(2))
  apply(t, 1, median) * 1000
}

# profmem parses each line as R code (about 0.1 ms a line): one run of it,
# which also gives the table its count is checked against.
theirs_time <- system.time(theirs <- profmem::readRprofmem(path), gcFirst = TRUE)
x <- read_rprofmem(path)
stopifnot(nrow(dm::dm_get_tables(x)$samples) == nrow(theirs))
times <- rbind(
  readLines = timed(readLines(path), 3),
  read_rprofmem = timed(read_rprofmem(path), 5),
  `profmem::readRprofmem` = 1000 * c(
    wall = theirs_time[["elapsed"]],
    cpu = theirs_time[["user.self"]] + theirs_time[["sys.self"]]
  )
)
print(round(times, 1))
cat(sprintf(
  "profmem / read_rprofmem: %.1fx (wall), %.1fx (CPU)\n",
  times[3, "wall"] / times[2, "wall"], times[3, "cpu"] / times[2, "cpu"]
))

# Memory held: the profile's tables (lobstr counts shared strings and compact
# columns once) against profmem's data frame, per allocation line.
ours <- as.numeric(lobstr::obj_size(dm::dm_get_tables(x)))
theirs_size <- as.numeric(lobstr::obj_size(theirs))
cat(sprintf(
  "bytes per allocation held: read_rprofmem %.1f, profmem %.1f\n",
  ours / lines_wanted, theirs_size / lines_wanted
))
cat(sprintf("load average: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
