# Recursive workloads. Sourced with keep.source = TRUE by
# data-raw/rprof-samples.R so that line profiling can refer to these lines.

fib <- function(n) {
  if (n < 2L) {
    return(n)
  }
  fib(n - 1L) + fib(n - 2L)
}

# A dotted name: 1.0.x turns "." into "_" in the `name` column.
my.fun <- function(depth, width) {
  if (depth == 0L) {
    return(sum(sqrt(seq_len(width))))
  }
  total <- 0
  for (i in 1:2) {
    total <- total + my.fun(depth - 1L, width)
  }
  total
}

# Mutual recursion between two dotted names.
is.even.num <- function(n) if (n == 0L) TRUE else is.odd.num(n - 1L)
is.odd.num <- function(n) if (n == 0L) FALSE else is.even.num(n - 1L)
