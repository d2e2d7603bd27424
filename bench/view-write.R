# Benchmark: the CPU time of profile_view(file = ) in R, for builds of the
# package installed into libraries of their own, alternated in one run: each
# round runs one R process per build (in turns), which reads each input and
# writes its view `reps` times; the medians over rounds are reported, with
# the ratios to the first build. CPU time (user + system) is what a shared
# machine disturbs least; the load average is printed before and after.
#
# Usage, from the package root (inputs: bench/scale-inputs.R and bench/view.R
# make bench/data/rprof-scale-1000000.out and rprof-wide-1e6.out):
#   Rscript bench/view-write.R NAME=LIB NAME=LIB ... [rounds]
# Results are recorded in bench/README.md ("The view in the browser").
args <- commandArgs(trailingOnly = TRUE)
last <- args[length(args)]
rounds <- if (length(last) && !grepl("=", last)) as.integer(last) else 3L
libs <- grep("=", args, value = TRUE)
if (length(libs) < 2) stop("usage: Rscript bench/view-write.R NAME=LIB NAME=LIB ... [rounds]")
libs <- stats::setNames(sub("^[^=]*=", "", libs), sub("=.*$", "", libs))
reps <- 3L
inputs <- c(
  "1e6" = "bench/data/rprof-scale-1000000.out",
  "wide-1e6" = "bench/data/rprof-wide-1e6.out"
)
if (!all(file.exists(inputs))) stop("run bench/scale-inputs.R and bench/view.R first")
inputs[] <- normalizePath(inputs)

child <- tempfile(fileext = ".R")
writeLines(c(
  "args <- commandArgs(TRUE)",
  "suppressPackageStartupMessages(library(profile, lib.loc = args[[1]]))",
  sprintf("inputs <- %s", paste(deparse(inputs), collapse = "")),
  sprintf("reps <- %d", reps),
  "html <- tempfile(fileext = '.html')",
  "for (name in names(inputs)) {",
  "  x <- read_rprof(inputs[[name]])",
  "  cpu <- replicate(reps, {",
  "    gc()",
  "    t <- system.time(profile_view(x, file = html))",
  "    t[['user.self']] + t[['sys.self']]",
  "  })",
  "  cat(name, median(cpu), '\\n')",
  "}"
), child)

load <- function() readLines("/proc/loadavg")
cat("load before:", load(), "\n")
times <- NULL
for (round in seq_len(rounds)) {
  for (build in names(libs)) {
    rscript <- file.path(R.home("bin"), "Rscript")
    out <- system2(rscript, c(shQuote(child), shQuote(libs[[build]])), stdout = TRUE)
    rows <- utils::read.table(text = out, col.names = c("input", "cpu_s"))
    rows$build <- build
    rows$round <- round
    times <- rbind(times, rows)
  }
}
cat("load after:", load(), "\n")
medians <- stats::aggregate(cpu_s ~ input + build, times, stats::median)
table <- stats::reshape(medians, idvar = "input", timevar = "build", direction = "wide")
names(table) <- sub("^cpu_s\\.", "", names(table))
table <- table[, c("input", names(libs))]
for (build in names(libs)[-1]) {
  ratio <- table[[build]] / table[[names(libs)[[1]]]]
  table[[paste0(build, " / ", names(libs)[[1]])]] <- round(ratio, 2)
}
cat(sprintf("CPU s of profile_view(file = ), median of %d rounds (each of %d):\n", rounds, reps))
print(table, row.names = FALSE)
