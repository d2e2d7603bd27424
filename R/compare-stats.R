# The statistics of profile_compare() (R/compare.R), on plain matrices: one row
# per function (line, location), one column per run, each cell the value of the
# row in the run (`sums`) and the sum of the squares of the sample values it
# adds up (`squares`: the variance of a compound Poisson count). No profile is
# read here, so that bench/compare.R judges these functions on simulated runs
# with known rates. ?profile_compare ("Statistics") says what is done and why.

# The rows compared: a data frame of base, x, delta, ratio, lower, upper,
# p_value, change and delta_normalized (one row per matrix row, in order), with
# the attributes `method` ("runs" or "sampling"), `speed` (the runs' common
# factors, x's mean over base's) and `prior_df`. `is_x`: TRUE for the columns
# of x. `counts`: the value of one sample where every sample of the type has
# the same value (a count of ticks: the exact Poisson test), else NULL.
# `speed_sums`: the rows' self values, from which the runs' factors are taken
# (total values nest: the outer frames hold every change).
compare_rows <- function(sums, squares, is_x, counts = NULL, level = 0.95, threshold = 0,
                         speed_sums = sums, speed_squares = squares) {
  sums <- as.matrix(sums)
  squares <- as.matrix(squares)
  n_x <- sum(is_x)
  n_base <- sum(!is_x)
  base_mean <- rowMeans(sums[, !is_x, drop = FALSE])
  x_mean <- rowMeans(sums[, is_x, drop = FALSE])
  alpha <- 1 - level
  fit <- if (n_x + n_base >= 3L) {
    fit <- between_runs_fit(sums, squares, is_x, speed_sums, speed_squares)
    # The run factors again without the rows that changed, which pull the
    # median of ratios towards them (the others would look changed the other
    # way): one round, as iterative normalisations of expression data do.
    changed <- stats::p.adjust(fit$p, method = "BH") <= alpha
    if (any(changed) && sum(!changed) >= 3L) {
      fit <- between_runs_fit(
        sums, squares, is_x,
        speed_sums[!changed, , drop = FALSE], speed_squares[!changed, , drop = FALSE]
      )
    }
    fit
  } else {
    sampling_fit(sums, squares, is_x, counts)
  }
  p_value <- stats::p.adjust(fit$p, method = "BH")
  selected <- p_value <= alpha
  # Intervals of the rows selected by BH at level 1 - R * alpha / m, R of m
  # selected (Benjamini and Yekutieli 2005): they keep the rate of intervals
  # that miss, among those shown as changes, at most alpha (the false coverage
  # rate), and they exclude 0 for every row BH selects.
  row_level <- rep(level, length(p_value))
  row_level[selected] <- 1 - sum(selected) * alpha / length(p_value)
  bounds <- fit$interval(row_level)
  relative <- abs(fit$ratio - 1)
  marked <- selected & !is.na(relative) & relative >= threshold
  change <- ifelse(marked, ifelse(fit$estimate > 0, "increase", "decrease"), "none")
  out <- data.frame(
    base = base_mean, x = x_mean, delta = x_mean - base_mean,
    ratio = x_mean / base_mean, lower = bounds$lower, upper = bounds$upper,
    p_value = p_value, change = change, delta_normalized = fit$estimate
  )
  attr(out, "method") <- fit$method
  attr(out, "speed") <- fit$speed
  attr(out, "prior_df") <- fit$prior_df
  out
}

# One run a side: only the profiler's sampling noise is known. A count of
# timer ticks is close to Poisson; given the sum of the two counts, the count
# of x is binomial with p = 1/2 when the rates are equal (the exact
# conditional test of two Poisson rates), and the difference k_x - k_base =
# N (2p - 1) gives the interval of delta from Clopper-Pearson's for p. Other
# values (bytes, nanoseconds of varying samples) are compound Poisson: the
# variance of a sum of sample values is the sum of their squares.
sampling_fit <- function(sums, squares, is_x, counts) {
  s_x <- sums[, is_x]
  s_base <- sums[, !is_x]
  if (!is.null(counts)) {
    k <- round(s_x / counts)
    total <- k + round(s_base / counts)
    p <- ifelse(total > 0, pmin(1, 2 * stats::pbinom(pmin(k, total - k), total, 0.5)), 1)
    interval <- function(level) {
      tail <- (1 - level) / 2
      low <- ifelse(k > 0, stats::qbeta(tail, k, total - k + 1), 0)
      high <- ifelse(k < total, stats::qbeta(1 - tail, k + 1, total - k), 1)
      list(lower = total * (2 * low - 1) * counts, upper = total * (2 * high - 1) * counts)
    }
  } else {
    se <- sqrt(squares[, is_x] + squares[, !is_x])
    z <- (s_x - s_base) / se
    p <- ifelse(se > 0, 2 * stats::pnorm(-abs(z)), 1)
    interval <- function(level) {
      half <- stats::qnorm(1 - (1 - level) / 2) * se
      list(lower = s_x - s_base - half, upper = s_x - s_base + half)
    }
  }
  list(
    method = "sampling", estimate = s_x - s_base, ratio = s_x / s_base, p = p,
    interval = interval, speed = NA_real_, prior_df = NA_real_
  )
}

# Several runs: the variation between runs, with the factor common to a whole
# run (a busier or slower machine) taken out and the variance of each row
# moderated across rows (see ?profile_compare, "Statistics").
between_runs_fit <- function(sums, squares, is_x, speed_sums, speed_squares) {
  factors <- run_speed(as.matrix(speed_sums), as.matrix(speed_squares), is_x)
  speed <- factors$speed
  scaled <- sweep(sums, 2L, speed, "/")
  sampling <- sweep(squares, 2L, speed^2, "/")
  sides <- list(x = is_x, base = !is_x)
  side_stats <- lapply(sides, function(side) {
    values <- scaled[, side, drop = FALSE]
    mean <- rowMeans(values)
    list(
      n = sum(side), mean = mean,
      rss = rowSums((values - mean)^2),
      sampling = rowMeans(sampling[, side, drop = FALSE])
    )
  })
  df_resid <- (side_stats$x$n - 1) + (side_stats$base$n - 1)
  # Per-run variance of a row: its sampling variance plus a common relative
  # variance (what the run factors leave: machine noise not common to the whole
  # run, the error of the factors), as a negative binomial's mu + a mu^2.
  extra <- common_relative_variance(side_stats)
  expected <- lapply(side_stats, function(s) s$sampling + extra * s$mean^2)
  expected_rss <- (side_stats$x$n - 1) * expected$x + (side_stats$base$n - 1) * expected$base
  rss <- side_stats$x$rss + side_stats$base$rss
  dispersion <- ifelse(expected_rss > 0, rss / expected_rss, NA)
  prior <- squeeze_dispersion(dispersion, df_resid)
  variance <- prior$posterior * (expected$x / side_stats$x$n + expected$base / side_stats$base$n) +
    factors$shift_var * ((side_stats$x$mean + side_stats$base$mean) / 2)^2
  # never below the sampling noise, which is there whatever the runs did
  floor <- side_stats$x$sampling / side_stats$x$n + side_stats$base$sampling / side_stats$base$n
  se <- sqrt(pmax(variance, floor))
  estimate <- side_stats$x$mean - side_stats$base$mean
  df <- df_resid + prior$df
  t <- estimate / se
  p <- ifelse(se > 0, 2 * stats::pt(-abs(t), df), ifelse(estimate == 0, 1, 0))
  interval <- function(level) {
    half <- stats::qt(1 - (1 - level) / 2, df) * se
    list(lower = estimate - half, upper = estimate + half)
  }
  list(
    method = "runs", estimate = estimate, ratio = side_stats$x$mean / side_stats$base$mean,
    p = p, interval = interval,
    speed = exp(mean(log(speed[is_x])) - mean(log(speed[!is_x]))), prior_df = prior$df
  )
}

# Each run's common factor, relative to the geometric mean of all runs: the
# median over rows of the run's value over the row's geometric mean across
# runs (the median of ratios, robust to the few rows that really changed),
# from the rows with at least 10 samples' worth (sum^2 / sum of squares) in
# every run, else at least some. Its error shifts every row of one side
# against the other alike: `shift_var` is the variance of the sides' log
# factor difference, the median's ((pi / 2) MAD^2 / rows) of the rows' own
# differences. With fewer than 3 such rows, each side's runs are scaled by
# their totals within the side only (the sides are not brought together).
run_speed <- function(sums, squares, is_x) {
  counts <- ifelse(squares > 0, sums^2 / squares, 0)
  least <- apply(counts, 1L, min)
  usable <- least >= 10
  if (sum(usable) < 3L) {
    usable <- least > 0
  }
  if (sum(usable) < 3L) {
    speed <- colSums(sums)
    if (any(speed <= 0)) {
      return(list(speed = rep(1, ncol(sums)), shift_var = 0))
    }
    for (side in list(is_x, !is_x)) {
      speed[side] <- speed[side] / exp(mean(log(speed[side])))
    }
    return(list(speed = speed, shift_var = 0))
  }
  logs <- log(sums[usable, , drop = FALSE])
  ratios <- logs - rowMeans(logs)
  log_speed <- apply(ratios, 2L, stats::median)
  shift <- rowMeans(ratios[, is_x, drop = FALSE]) - rowMeans(ratios[, !is_x, drop = FALSE])
  list(
    speed = exp(log_speed - mean(log_speed)),
    shift_var = pi / 2 * stats::mad(shift)^2 / length(shift)
  )
}

# The common relative variance `a` of the per-run variance s + a m^2, by the
# method of moments over all rows (0 when the rows vary no more than their
# sampling noise).
common_relative_variance <- function(side_stats) {
  excess <- 0
  weight <- 0
  for (s in side_stats) {
    excess <- excess + sum(s$rss - (s$n - 1) * s$sampling)
    weight <- weight + sum((s$n - 1) * s$mean^2)
  }
  if (weight <= 0) {
    return(0)
  }
  max(0, excess / weight)
}

# The rows' dispersions (observed over expected variance, `df` degrees of
# freedom each) moderated as limma moderates variances (Smyth 2004): a scaled
# inverse chi-square prior fitted to the rows by moments of log dispersion, and
# each row's posterior mean, which is worth df + prior df degrees of freedom.
# Few rows, or rows that agree, give a strong prior; a row of few runs is
# then not over-confident.
squeeze_dispersion <- function(dispersion, df) {
  usable <- !is.na(dispersion) & dispersion > 0
  if (sum(usable) < 3L) {
    scale <- if (any(usable)) mean(dispersion[usable]) else 1
    return(list(posterior = ifelse(is.na(dispersion), scale, dispersion), df = 0))
  }
  centred <- log(dispersion[usable]) - digamma(df / 2) + log(df / 2)
  spread <- stats::var(centred) - trigamma(df / 2)
  if (spread > 0) {
    prior_df <- 2 * inverse_trigamma(spread)
    prior_scale <- exp(mean(centred) + digamma(prior_df / 2) - log(prior_df / 2))
  } else {
    prior_df <- Inf
    prior_scale <- exp(mean(centred))
  }
  # no more than all rows' residual degrees of freedom together
  prior_df <- min(prior_df, df * sum(usable))
  observed <- ifelse(is.na(dispersion), prior_scale, dispersion)
  posterior <- (prior_df * prior_scale + df * observed) / (prior_df + df)
  list(posterior = posterior, df = prior_df)
}

# x such that trigamma(x) = y, by Newton's method on 1 / trigamma (nearly
# linear in x), started where trigamma(x) ~ 1/x + 1/(2 x^2) is solved.
inverse_trigamma <- function(y) {
  if (y > 1e7) {
    return(1 / sqrt(y))
  }
  if (y < 1e-6) {
    return(1 / y)
  }
  x <- 0.5 + 1 / y
  for (i in seq_len(50L)) {
    tri <- trigamma(x)
    step <- tri * (1 - tri / y) / psigamma(x, deriv = 2L)
    x <- x + step
    if (-step / x < 1e-8) {
      break
    }
  }
  x
}

# The runs' totals compared: with several runs, Welch's t on the raw totals
# (no run factor taken out: a whole-program change and a slower machine look
# alike here, so machine noise is part of the interval), the variance pooled
# where a side has one run; with one run a side, as sampling_fit().
compare_totals <- function(totals, squares, is_x, counts = NULL, level = 0.95) {
  n_x <- sum(is_x)
  n_base <- sum(!is_x)
  if (n_x + n_base < 3L) {
    fit <- sampling_fit(matrix(totals, 1L), matrix(squares, 1L), is_x, counts)
    bounds <- fit$interval(level)
    p <- fit$p
  } else {
    var_x <- if (n_x > 1L) stats::var(totals[is_x]) else NA
    var_base <- if (n_base > 1L) stats::var(totals[!is_x]) else NA
    if (is.na(var_x) || is.na(var_base) || var_x + var_base == 0) {
      pooled <- sum((c(n_x, n_base) - 1) * c(var_x, var_base), na.rm = TRUE) / (n_x + n_base - 2)
      se2 <- pooled * (1 / n_x + 1 / n_base)
      df <- n_x + n_base - 2
    } else {
      se2 <- var_x / n_x + var_base / n_base
      df <- se2^2 / ((var_x / n_x)^2 / (n_x - 1) + (var_base / n_base)^2 / (n_base - 1))
    }
    floor <- mean(squares[is_x]) / n_x + mean(squares[!is_x]) / n_base
    se <- sqrt(max(se2, floor))
    estimate <- mean(totals[is_x]) - mean(totals[!is_x])
    p <- if (se > 0) 2 * stats::pt(-abs(estimate / se), df) else as.numeric(estimate == 0)
    half <- stats::qt(1 - (1 - level) / 2, df) * se
    bounds <- list(lower = estimate - half, upper = estimate + half)
  }
  base <- mean(totals[!is_x])
  x <- mean(totals[is_x])
  data.frame(
    base = base, x = x, delta = x - base, ratio = x / base,
    lower = bounds$lower, upper = bounds$upper, p_value = p,
    change = if (p <= 1 - level) ifelse(x > base, "increase", "decrease") else "none"
  )
}
