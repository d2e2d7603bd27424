# Ten R workloads of different kinds, for the recordings of bench/db.R's
# second data set (data-raw/bench/record.R): each is a function of no
# arguments that does one round of its work; the recorder repeats rounds
# until its CPU budget is spent. Sourced with srcrefs, so that the recordings
# carry line numbers.

workloads <- list(
  # the workloads of data-raw/rprof-workloads (those of 2.1's recording)
  rounds = function() {
    time_round()
    memory_round()
  },
  strings = function() {
    words <- vapply(1:400, function(i) paste(sample(letters, 8, TRUE), collapse = ""), "")
    text <- paste(words, collapse = " ")
    tokens <- strsplit(text, " ", fixed = TRUE)[[1]]
    counts <- table(substr(tokens, 1, 2))
    upper <- toupper(gsub("[aeiou]", "_", tokens))
    found <- regmatches(text, gregexpr("[a-e]{2,}", text))[[1]]
    labelled <- sprintf("%s-%d", words, seq_along(words))
    length(counts) + length(upper) + length(found) + nchar(labelled)[[1]]
  },
  frames = function() {
    n <- 3000
    df <- data.frame(g = sample(letters[1:20], n, TRUE), x = runif(n), y = rnorm(n))
    agg <- aggregate(x ~ g, data = df, FUN = mean)
    merged <- merge(df, agg, by = "g", suffixes = c("", ".mean"))
    ordered <- merged[order(merged$g, -merged$y), ]
    split_means <- vapply(split(ordered$y, ordered$g), mean, 0)
    nrow(ordered) + length(split_means)
  },
  matrices = function() {
    m <- matrix(rnorm(120 * 120), 120)
    s <- crossprod(m) + diag(120)
    inv <- solve(s)
    q <- qr(m)
    e <- eigen(s[1:60, 1:60], symmetric = TRUE)$values
    sum(inv) + sum(qr.R(q)) + sum(e)
  },
  sorting = function() {
    x <- runif(2e4)
    o <- order(x)
    s <- sort(x, method = "radix")
    r <- rank(x)
    c <- cumsum(x[o])
    b <- findInterval(runif(2e3), s)
    u <- unique(round(x, 2))
    s[[1]] + r[[1]] + c[[length(c)]] + sum(b) + length(u)
  },
  functional = function() {
    xs <- lapply(1:300, function(i) seq_len(i %% 50 + 1))
    lens <- vapply(xs, length, 1L)
    total <- Reduce(`+`, Map(function(a, b) sum(a) * b, xs, lens))
    nested <- do.call(rbind, lapply(1:200, function(i) c(i, i^2, sqrt(i))))
    Filter(function(v) length(v) > 10, xs)
    total + sum(nested)
  },
  parsing = function() {
    code <- vapply(1:150, function(i) sprintf("f%d <- function(x) x * %d + %d", i, i, i * 2), "")
    exprs <- parse(text = code, keep.source = FALSE)
    env <- new.env()
    for (e in exprs) eval(e, env)
    text <- vapply(exprs, function(e) paste(deparse(e), collapse = ""), "")
    sum(nchar(text)) + env$f10(3)
  },
  environments = function() {
    env <- new.env(hash = TRUE)
    keys <- sprintf("key%05d", sample.int(1e5, 3000))
    for (k in keys) assign(k, nchar(k), envir = env)
    hits <- vapply(keys[1:1500], exists, TRUE, envir = env, inherits = FALSE)
    got <- mget(keys[1:500], envir = env)
    l <- list()
    for (i in 1:800) l[[sprintf("k%d", i)]] <- i
    sum(hits) + length(got) + length(l)
  },
  recursion = function() {
    fib(16L)
    hanoi <- function(n, from = 1, to = 3, via = 2) {
      if (n == 0) {
        return(0)
      }
      hanoi(n - 1, from, via, to) + 1 + hanoi(n - 1, via, to, from)
    }
    walk <- function(depth) if (depth == 0) runif(1) else walk(depth - 1) + walk(depth - 1) * 0
    hanoi(11) + walk(10)
  },
  numeric = function() {
    f <- function(x) sin(x) * exp(-x / 10)
    i <- integrate(f, 0, 20)$value
    o <- optim(c(1, 1), function(p) sum((p - c(3, -2))^2 + sin(p)))$value
    r <- uniroot(function(x) x^3 - 2 * x - 5, c(0, 3))$root
    s <- stats::spline(1:100, sin(1:100 / 7), n = 1000)
    smooth <- stats::lowess(runif(800), runif(800))
    i + o + r + sum(s$y) + sum(smooth$y)
  }
)
