# Records inst/samples/rprof/toplevel.out: a profile whose stacks end in the
# line of the top-level code, as R writes it for code typed at the console (or
# run with `R -f`, `R CMD BATCH`) while source references are kept.
#
# Run by data-raw/rprof-samples.R as console input, not sourced:
#
#   R --vanilla --no-echo -f data-raw/rprof-toplevel.R --args OUT
#
# With line profiling, R writes after each frame the source reference of the
# call that made it; for the outermost frame that is the top-level call, so a
# line ends in a reference with no frame to its right (`1#9 "f" 2#3`). The
# console's source file has no name (`#File 2: `). The statements must be in a
# top-level `{ }` block: R sets the source reference of each statement of a
# block as it runs it, not of a lone top-level call.

out <- commandArgs(trailingOnly = TRUE)[[1L]]
workloads <- list.files(
  file.path("data-raw", "rprof-workloads"),
  pattern = "[.]R$", full.names = TRUE
)
for (f in sort(workloads)) {
  source(f, keep.source = TRUE)
}
# The expressions below are parsed after this has run: they get source
# references (Rscript and R -f do not keep them by default).
options(keep.source = TRUE)
set.seed(20240601)

Rprof(out, interval = 0.005, line.profiling = TRUE, memory.profiling = TRUE)
# The top-level block the header speaks of (not a call such as local(), which
# would be a frame of its own).
{ # nolint: brace_linter.
  # Lines that end in the top-level reference.
  keep_going <- budget(1)
  while (keep_going()) time_round()
  # A byte-compiled loop runs without any frame: its lines hold the memory
  # prefix and the top-level reference alone.
  z <- 0
  for (i in seq_len(3e6)) z <- z + i %% 3L
  # FUN's reference is to the console too.
  y <- vapply(1:40, function(i) sum(sort(runif(2e4))), numeric(1))
}
Rprof(NULL)
