# Benchmark of read_otlp() and write_otlp() against read_pprof() and
# write_pprof() on the same profile of 1e6 observations: time (bench::mark),
# memory of the result in R, and file sizes (OTLP binary and JSON, gzip-
# compressed or not, against pprof). From the package root:
#
#   R CMD INSTALL -l .rlib . && R_LIBS=.rlib Rscript bench/otlp.R [N]
#
# The profile: the samples of the package's Go CPU profile (inst/samples/pprof/
# cpu.pb.gz: 628 samples, labels, 15 frames on average) repeated to N (1e6)
# samples of one pprof source, each with its own values (the k-th repeat's
# values times k), so that pprof and OTLP both hold every sample: write_pprof()
# writes pprof samples one to one, write_otlp() combines samples of equal stack
# and labels into one OTLP Sample with a value per observation.

args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.numeric(args[[1]]) else 1e6
suppressPackageStartupMessages(library(profile))

cpu <- system.file("samples", "pprof", "cpu.pb.gz", package = "profile")
base <- dm::dm_get_tables(read_pprof(cpu))
m <- nrow(base$samples)
reps <- ceiling(n / m)
grow <- function(df, ids) {
  k <- rep(seq_len(reps), each = nrow(df))
  out <- df[rep(seq_len(nrow(df)), reps), , drop = FALSE]
  out$sample_id <- out$sample_id + (k - 1L) * max(base$samples$sample_id)
  list(df = out, k = k)
}
t <- base
t$samples <- grow(base$samples)$df
sv <- grow(base$sample_values)
t$sample_values <- sv$df
t$sample_values$value <- t$sample_values$value * sv$k
t$sample_locations <- grow(base$sample_locations)$df
t$sample_labels <- grow(base$sample_labels)$df
keep <- t$samples$sample_id[seq_len(n)]
t$samples <- t$samples[seq_len(n), ]
t$sample_values <- t$sample_values[t$sample_values$sample_id %in% keep, ]
t$sample_locations <- t$sample_locations[t$sample_locations$sample_id %in% keep, ]
t$sample_labels <- t$sample_labels[t$sample_labels$sample_id %in% keep, ]
x <- do.call(new_profile_v2, t)
rm(t, sv, base)
invisible(gc())

dir <- tempfile()
dir.create(dir)
files <- c(
  pprof = file.path(dir, "x.pb.gz"),
  otlp = file.path(dir, "x.otlp.pb"),
  otlp_gz = file.path(dir, "x.otlp.pb.gz"),
  json = file.path(dir, "x.otlp.json"),
  json_gz = file.path(dir, "x.otlp.json.gz")
)
write_pprof(x, files[["pprof"]])
write_otlp(x, files[["otlp"]])
write_otlp(x, files[["otlp_gz"]])
write_otlp(x, files[["json"]], format = "json")
write_otlp(x, files[["json_gz"]], format = "json")

cat(sprintf(
  "%s observations (%d samples of cpu.pb.gz repeated), %s sample_locations rows; load %s\n",
  format(n, big.mark = ","), m, format(nrow(dm::dm_get_tables(x)$sample_locations), big.mark = ","),
  paste(readLines("/proc/loadavg"), collapse = " ")
))

marks <- bench::mark(
  read_pprof = read_pprof(files[["pprof"]]),
  read_otlp = read_otlp(files[["otlp"]]),
  read_otlp_gz = read_otlp(files[["otlp_gz"]]),
  read_otlp_json = read_otlp(files[["json"]]),
  write_pprof = write_pprof(x, files[["pprof"]]),
  write_otlp = write_otlp(x, files[["otlp"]]),
  write_otlp_gz = write_otlp(x, files[["otlp_gz"]]),
  write_otlp_json = write_otlp(x, files[["json"]], format = "json"),
  check = FALSE, min_iterations = 5, max_iterations = 5, filter_gc = FALSE
)
times <- stats::setNames(as.numeric(marks$median), as.character(marks$expression))
# CPU time (user + system) of the same calls: wall time includes the disk
# (the writers sync the file, and an OTLP file is larger than a pprof one) and
# the other processes of a shared machine.
cpu_time <- function(expr) {
  t <- system.time(expr, gcFirst = FALSE)
  t[["user.self"]] + t[["sys.self"]]
}
cpu5 <- function(f) stats::median(replicate(5, cpu_time(f())))
cpu <- c(
  read_pprof = cpu5(function() read_pprof(files[["pprof"]])),
  read_otlp = cpu5(function() read_otlp(files[["otlp"]])),
  read_otlp_gz = cpu5(function() read_otlp(files[["otlp_gz"]])),
  read_otlp_json = cpu5(function() read_otlp(files[["json"]])),
  write_pprof = cpu5(function() write_pprof(x, files[["pprof"]])),
  write_otlp = cpu5(function() write_otlp(x, files[["otlp"]])),
  write_otlp_gz = cpu5(function() write_otlp(x, files[["otlp_gz"]])),
  write_otlp_json = cpu5(function() write_otlp(x, files[["json"]], format = "json"))
)
cat("\nMedian wall time (bench::mark) and CPU time of 5 runs (s), each against the pprof\n")
cat("function of the same kind:\n")
cat(sprintf("  %-16s %8s %7s %8s %7s\n", "", "wall", "ratio", "cpu", "ratio"))
for (k in names(times)) {
  base <- if (startsWith(k, "read")) "read_pprof" else "write_pprof"
  cat(sprintf(
    "  %-16s %7.2fs %6.2fx %7.2fs %6.2fx\n", k, times[[k]], times[[k]] / times[[base]],
    cpu[[k]], cpu[[k]] / cpu[[base]]
  ))
}

size_of <- function(y) {
  sum(vapply(dm::dm_get_tables(y), function(df) as.numeric(lobstr::obj_size(df)), 0))
}
from_pprof <- read_pprof(files[["pprof"]])
from_otlp <- read_otlp(files[["otlp"]])
cat(sprintf(
  "\nMemory of the result in R: read_pprof() %.0f MB, read_otlp() %.0f MB\n",
  size_of(from_pprof) / 1e6, size_of(from_otlp) / 1e6
))
cat("\nFile sizes (MB) and against the pprof file (gzip-compressed, as write_pprof() writes it):\n")
sizes <- stats::setNames(file.size(files), names(files))
for (k in names(files)) {
  cat(sprintf("  %-8s %8.2f MB  %6.2fx\n", k, sizes[[k]] / 1e6, sizes[[k]] / sizes[["pprof"]]))
}
unlink(dir, recursive = TRUE)
