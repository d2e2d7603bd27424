# One "round" calls every workload once; the driver repeats rounds until a
# CPU time budget is spent, so the number of samples depends little on the
# speed of the machine.

cpu_seconds <- function() sum(proc.time()[c("user.self", "sys.self")])

time_round <- function() {
  fib(15L)
  my.fun(6L, 400L)
  for (k in 1:100) is.even.num(12L)
  obj$g(3000L)
  `slow sum`(600L)
  call_namespaced(5000L)
  call_anonymous(1500L)
}

# Kept apart from time_round(): profile 1.0.4 cannot read frame names with
# quotes in them, and 1.out, which it converts, must stay readable by it.
quoted_round <- function() {
  x[["a"]](3000L)
  x[["b c"]](2000L)
}

memory_round <- function() {
  grow.vector(600L)
  big.alloc(300L)
  copy.modify(5000L)
  fib(13L)
  obj$f(2000L)
}

gc_rounds_done <- 0L

gc_round <- function() {
  memory_round()
  churn(3000L)
  gc_rounds_done <<- gc_rounds_done + 1L
  if (gc_rounds_done %% 20L == 0L) full.collect()
}

# Returns a function that is TRUE until `seconds` of CPU time have passed
# since it was created:  keep_going <- budget(1); while (keep_going()) ...
budget <- function(seconds) {
  start <- cpu_seconds()
  function() cpu_seconds() - start < seconds
}
