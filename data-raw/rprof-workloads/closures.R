# Functions that are not called through a plain symbol: list elements,
# environments, namespaces, anonymous functions.

spin <- function(n) {
  s <- 0
  for (i in seq_len(n)) s <- s + i %% 7L
  s
}

# Called as obj$f(...) and obj$g(...): Rprof writes "obj$f".
obj <- list(
  f = function(n) spin(n),
  g = function(n) obj$f(n) + spin(n %/% 2L)
)

# Called as x[["a"]](...): Rprof writes the name with the inner quotes
# as they are, "x[["a"]]". The second element has a space in its name.
x <- list(
  a = function(n) spin(n),
  "b c" = function(n) spin(n)
)

# A backquoted name that contains a space.
`slow sum` <- function(n) sum(vapply(seq_len(n), function(i) i / 2, numeric(1)))

call_namespaced <- function(n) {
  v <- runif(n)
  top <- utils::head(sort(v), 10L)
  med <- stats:::median.default(v)
  q <- stats::quantile(v, c(0.1, 0.9))
  c(top, med, q)
}

call_anonymous <- function(n) {
  # lapply() calls the anonymous function as FUN
  parts <- lapply(seq_len(4L), function(i) spin(n))
  # called directly: Rprof writes "<Anonymous>"
  (function(m) spin(m))(n)
  length(parts)
}
