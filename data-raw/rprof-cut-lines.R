# Records inst/samples/rprof/cut-lines.out.gz: a line profile with stack lines
# that R cut, some right after a line reference, and complete lines that end
# in the line of the top-level code.
#
# Run by data-raw/rprof-samples.R as console input, not sourced (the top-level
# references need it, see data-raw/rprof-toplevel.R):
#
#   R --vanilla --no-echo -f data-raw/rprof-cut-lines.R --args OUT
#
# R (4.2 here) writes the stack of a tick frame by frame, innermost first, and
# stops adding frames once the line has 10 000 bytes (PROFLINEMAX in R's
# eval.c); the line then ends after the frame name or after the line
# reference that passed that length (`... "and_further_down_..." 1#14 `),
# and the outer frames are missing. profile 1.0.4 reads the reference at the
# end as a cut frame, drops it and warns. (Rprof()'s `bufsize` argument sizes
# the buffer of source file names in R 4.2, not the line: the length of the
# line is fixed, so deep stacks are what cuts it.)
#
# Which of the two a line ends in depends on the length of its innermost
# frames: the deep stacks below end in functions named "w", "ww", ... (called
# by do.call(), which writes the name), one byte longer each time, so that
# the cut falls into each part of the frames that repeat. The calls at the
# start, three levels deep, give complete lines that end in the reference of
# the top-level code.

out <- commandArgs(trailingOnly = TRUE)[[1L]]
workloads <- list.files(
  file.path("data-raw", "rprof-workloads"),
  pattern = "[.]R$", full.names = TRUE
)
for (f in sort(workloads)) {
  source(f, keep.source = TRUE)
}
options(keep.source = TRUE)
leaf_names <- vapply(1:30, function(k) strrep("w", k), "")
for (name in leaf_names) assign(name, function() busy(0.02))

Rprof(out, interval = 0.005, line.profiling = TRUE)
# one top-level expression: its stack lines end in one line reference
{ # nolint: brace_linter.
  for (name in leaf_names[1:5]) {
    descend_through_a_stack_deep_enough_to_fill_the_line_of_the_profiler(3L, name)
  }
  for (name in leaf_names) {
    descend_through_a_stack_deep_enough_to_fill_the_line_of_the_profiler(80L, name)
  }
}
Rprof(NULL)
