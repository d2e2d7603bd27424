# Benchmark: write_rprof() against CRAN profile 1.0.4's write_rprof(), on the
# real 30k-sample recording (memory and line profiling). Not a test; results go
# into bench/README.md. From the package root, after bench/rprof-data.R:
#
#   R_LIBS=.rlib Rscript bench/rprof-write.R
#
# profile 1.0.4 runs in a child process from its own library ($PROFILE_104_LIB,
# default ~/.cache/profile-1.0.4): it reads the file with its own read_rprof()
# and times its write_rprof() of that object. The floor is writeLines() of the
# file's lines (read beforehand). Medians of bench::mark() (ours) and of 3 runs
# (1.0.4), elapsed ms.

suppressPackageStartupMessages(library(profile))
path <- normalizePath(file.path("bench", "data", "rprof-30k.out"), mustWork = TRUE)
lib104 <- Sys.getenv("PROFILE_104_LIB", path.expand("~/.cache/profile-1.0.4"))

x <- read_rprof(path)
v1 <- read_rprof(path, version = "1.0")
lines <- readLines(path)
out <- tempfile(fileext = ".out")
med_ms <- function(expr) {
  m <- bench::mark(
    exprs = list(substitute(expr)), env = parent.frame(), min_time = 2,
    min_iterations = 5, check = FALSE, filter_gc = FALSE
  )
  as.numeric(m$median) * 1000
}
ours <- c(
  floor = med_ms(writeLines(lines, out)),
  v2 = med_ms(write_rprof(x, out)),
  v1 = med_ms(write_rprof(v1, out))
)

child <- tempfile(fileext = ".R")
writeLines(c(
  "args <- commandArgs(trailingOnly = TRUE)",
  "suppressPackageStartupMessages(library(profile, lib.loc = args[[2]]))",
  "stopifnot(as.character(packageVersion('profile')) == '1.0.4')",
  "ds <- suppressWarnings(read_rprof(args[[1]]))",
  "out <- tempfile(fileext = '.out')",
  "t <- replicate(3, system.time(write_rprof(ds, out), gcFirst = FALSE)[['elapsed']])",
  "cat(median(t) * 1000, '\\n')"
), child)
res <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", child, shQuote(path), shQuote(lib104)),
  stdout = TRUE
)
t104 <- as.numeric(trimws(tail(res, 1)))

cat(sprintf(
  "%s: %d lines, %.1f MB; %s, load average %s\n", basename(path), length(lines),
  file.size(path) / 2^20, format(Sys.time(), "%Y-%m-%d %H:%M"),
  paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
))
print(data.frame(
  task = c("writeLines() of the lines (floor)", "write_rprof(v2)", "write_rprof(v1 object)"),
  ms = round(ours, 1), ms_1.0.4 = round(t104), speedup = round(t104 / ours, 1)
), row.names = FALSE, right = FALSE)
