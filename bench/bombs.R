# Time and peak memory of refusing hostile files (the decompression bombs of
# tests/testthat/test-hostile-memory.R), each read in a new R process whose
# address space is capped (`ulimit -v`; 4 GB as in the tests, or the first
# argument in KB), for the library in R_LIBS.
#
#   R_LIBS=.rlib Rscript bench/bombs.R [address space in KB]
#
# Peak: growth of the child's VmHWM from after library(profile) to the end of
# the read. An abort (the process ended without a report) shows as "ended".
args <- commandArgs(trailingOnly = TRUE)
address_space <- if (length(args)) as.numeric(args[[1]]) else 4e6
suppressPackageStartupMessages(library(profile))
for (helper in c("helper-pprof.R", "helper-bombs.R")) {
  sys.source(file.path("tests", "testthat", helper), envir = environment())
}

cases <- list(
  c("read_pprof", "strings.pb.gz"),
  c("read_rprof", "lines.out.gz"),
  c("read_rprof", "zeros.gz"),
  c("read_pprof", "zeros.gz"),
  c("read_pprof", "samples.pb.gz"),
  c("read_pprof", "length.pb.gz"),
  c("read_pprof", "string.pb.gz"),
  c("read_rprof", "stacks.out.gz"),
  c("read_rprof", "deep.out.gz"),
  c("read_pprof", "inlined.pb.gz"),
  c("read_rprof", "lines.out.xz"),
  c("read_rprof", "zeros.bz2")
)
cat(sprintf(
  "profile %s from %s; address space %g KB; load %s\n",
  packageVersion("profile"), dirname(find.package("profile")), address_space,
  paste(readLines("/proc/loadavg"), collapse = "")
))
rows <- lapply(cases, function(case) {
  path <- bomb(case[[2]])
  # A child that ends without a report fails (testthat::fail()): an error here.
  res <- tryCatch(read_in_capped_process(case[[1]], path, address_space), error = function(e) NULL)
  outcome <- if (is.null(res)) "ended" else setdiff(res$class, c("profile_error", "rlang_error", "error", "condition"))[1]
  data.frame(
    reader = case[[1]], file = case[[2]], file_MB = round(file.size(path) / 1e6, 2),
    outcome = outcome,
    seconds = if (is.null(res)) NA else round(res$seconds, 2),
    peak_MB = if (is.null(res)) NA else round(res$peak / 1e6)
  )
})
print(do.call(rbind, rows), row.names = FALSE)
