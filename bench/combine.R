# Benchmark of combine_profiles(): N = 10, 100, 1000 inputs and twice as many, to
# check that the time grows linearly: T(2N) / T(N) <= 2.2.
#
# The inputs are the sample profiles of the package (Rprof files and Go pprof
# files), read once and repeated to N inputs; each input is still checked,
# converted and combined on its own. T is the CPU time (user + system) of the
# fastest of a few runs: the machines this runs on are shared, and the fastest run
# is the one least disturbed by other processes.
#
# Run from the package root after installing:
#   R CMD INSTALL --no-multiarch -l .rlib . && R_LIBS=.rlib Rscript bench/combine.R

library(profile)

samples <- system.file("samples", package = "profile", mustWork = TRUE)
rprof_files <- list.files(file.path(samples, "rprof"), full.names = TRUE)
# (incomplete.out warns about its cut last line; that is not what is measured here)
rprof_files <- rprof_files[basename(rprof_files) != "incomplete.out"]
pprof_files <- list.files(file.path(samples, "pprof"), full.names = TRUE)
profiles <- c(lapply(rprof_files, read_rprof), lapply(pprof_files, read_pprof))

# CPU and elapsed seconds of the fastest of `runs` evaluations of `expr`.
fastest <- function(expr, runs) {
  expr <- substitute(expr)
  env <- parent.frame()
  times <- vapply(seq_len(runs), function(i) {
    invisible(gc())
    t <- system.time(eval(expr, env))
    c(cpu = t[["user.self"]] + t[["sys.self"]], elapsed = t[["elapsed"]])
  }, numeric(2))
  times[, which.min(times["cpu", ])]
}

sizes <- c(10, 20, 100, 200, 1000, 2000)
results <- lapply(sizes, function(n) {
  inputs <- rep_len(profiles, n)
  t <- fastest(combined <- combine_profiles(inputs), runs = if (n >= 1000) 3 else 7)
  data.frame(
    inputs = n,
    samples = nrow(combined$samples),
    sample_locations = nrow(combined$sample_locations),
    functions = nrow(combined$functions),
    cpu_seconds = t[["cpu"]],
    elapsed_seconds = t[["elapsed"]]
  )
})
results <- do.call(rbind, results)
results$ms_per_input <- round(1000 * results$cpu_seconds / results$inputs, 2)
print(results, row.names = FALSE)

ratio <- results$cpu_seconds[c(2, 4, 6)] / results$cpu_seconds[c(1, 3, 5)]
names(ratio) <- sprintf("T(%d)/T(%d)", sizes[c(2, 4, 6)], sizes[c(1, 3, 5)])
print(round(ratio, 2))
if (any(ratio > 2.2)) {
  stop("combine_profiles() grows faster than linearly: ", paste(names(ratio)[ratio > 2.2], collapse = ", "))
}
cat("Linear: every T(2N)/T(N) <= 2.2\n")
