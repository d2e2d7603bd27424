# Deep stacks, for inst/samples/rprof/cut-lines.out.gz (data-raw/rprof-cut-lines.R):
# two functions with long names call each other until `n` reaches 0, then the
# function named `leaf` runs. 80 levels make a stack line of more than the
# 10 000 bytes at which R cuts it.

descend_through_a_stack_deep_enough_to_fill_the_line_of_the_profiler <- function(n, leaf) {
  if (n > 0L) {
    return(and_further_down_the_stack_towards_the_function_that_works(n - 1L, leaf))
  }
  do.call(leaf, list())
}

and_further_down_the_stack_towards_the_function_that_works <- function(n, leaf) {
  descend_through_a_stack_deep_enough_to_fill_the_line_of_the_profiler(n, leaf)
}

# Keeps the CPU busy for `seconds` of CPU time.
busy <- function(seconds) {
  start <- cpu_seconds()
  x <- 0
  while (cpu_seconds() - start < seconds) x <- x + sum(sqrt(seq_len(2000)))
  x
}
