# Allocation-heavy workloads for memory and GC profiling.

# Growing a vector one element at a time reallocates on every step.
grow.vector <- function(n) {
  v <- numeric(0)
  for (i in seq_len(n)) v <- c(v, i)
  v
}

# Large vectors (allocated on the large vector heap).
big.alloc <- function(n) {
  m <- matrix(runif(n * n), n)
  s <- m + t(m)
  sum(s)
}

# Modifying a copy of a shared object forces duplications.
copy.modify <- function(n) {
  base <- as.list(seq_len(n))
  out <- 0
  for (i in 1:20) {
    y <- base
    y[[1L]] <- i
    out <- out + length(y)
  }
  out
}

# Many small objects: the collector runs now and then on its own.
churn <- function(n) {
  l <- lapply(seq_len(n), function(i) list(i, as.character(i)))
  length(l)
}

# An explicit full collection. It is slow (tens of milliseconds), so the
# rounds call it only now and then.
full.collect <- function() invisible(gc(verbose = FALSE))
