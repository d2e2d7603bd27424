# Benchmark: is the growth from 1e5 to 1e6 samples linear once the cost of fresh
# memory is set apart? Not a test; results go into bench/README.md.
#
#   R_LIBS=.rlib Rscript bench/linearity.R
#
# At 1e6 samples every large vector is new memory from the kernel: glibc serves
# blocks above 32 MB with mmap() and gives them back on free(), and R returns
# freed vector memory too, so each read pays page faults (and on this virtual
# machine the host's faults) that a read of 1e5 samples, served from memory the
# allocator keeps, does not. The floor, readBin() of the file into a raw vector,
# shows that cost alone. Each operation is timed (bench::mark(), median of at
# least 15 runs) in two child processes: as R runs by default, and with glibc
# told to keep freed memory (GLIBC_TUNABLES: no mmap(), no trimming), which
# leaves the work itself.

source(file.path("bench", "scale-inputs.R"))
files <- scale_inputs(c(1e5, 1e6))

child <- tempfile(fileext = ".R")
writeLines(c(
  "suppressPackageStartupMessages(library(profile))",
  "files <- commandArgs(TRUE)",
  "times <- sapply(files, function(f) {",
  "  x <- read_rprof(f)",
  "  out <- tempfile(fileext = '.pb.gz')",
  "  out_rprof <- tempfile(fileext = '.out')",
  "  m <- bench::mark(",
  "    readBin = readBin(f, 'raw', file.size(f)),",
  "    read_rprof = read_rprof(f),",
  "    validate = validate_profile(x),",
  "    write_rprof = write_rprof(x, out_rprof),",
  "    write_pprof = write_pprof(x, out),",
  "    summary = profile_summary(x),",
  "    min_iterations = 15, check = FALSE, filter_gc = FALSE)",
  "  setNames(as.numeric(m$median) * 1000, as.character(m$expression))",
  "})",
  "cat(sprintf('%s %.2f %.2f\\n', rownames(times), times[, 1], times[, 2]), sep = '')"
), child)

run <- function(tunables) {
  env <- if (nzchar(tunables)) paste0("GLIBC_TUNABLES=", tunables) else character()
  out <- system2(file.path(R.home("bin"), "Rscript"), c(child, shQuote(files)), stdout = TRUE, env = env)
  parts <- strsplit(out, " ")
  data.frame(
    operation = vapply(parts, `[[`, "", 1),
    ms_1e5 = as.numeric(vapply(parts, `[[`, "", 2)),
    ms_1e6 = as.numeric(vapply(parts, `[[`, "", 3))
  )
}

cat(sprintf(
  "%s, R %s, %d cores, load average %s\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
  getRversion(), parallel::detectCores(),
  paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
))
for (mode in c("", "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=1000000000000")) {
  res <- run(mode)
  res$growth <- round(res$ms_1e6 / res$ms_1e5, 1)
  cat("\n", if (nzchar(mode)) "freed memory kept (GLIBC_TUNABLES)" else "default allocator", ":\n", sep = "")
  print(format(res, digits = 3), row.names = FALSE)
}
