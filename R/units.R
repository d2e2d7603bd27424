# Amounts with their units, as summaries and flame graphs print them: times in
# s, ms, us (nanoseconds too, as pprof's CPU profiles have them), bytes in
# binary units (KiB, MiB, GiB: "287.1 MiB", as utils::summaryRprof() reports
# memory in units of 2^20 bytes), counts as whole numbers with thousands
# separators ("1,234 count"); any other unit after the number.

# `x` (numbers in `unit`) as text, one string per number.
format_amount <- function(x, unit) {
  unit <- if (is.null(unit) || is.na(unit)) "" else unit
  switch(unit,
    seconds = format_seconds(x),
    nanoseconds = format_seconds(x / 1e9),
    bytes = format_bytes(x),
    count = paste(format_count(x), "count"),
    if (nzchar(unit)) paste(format_number(x), unit) else format_number(x)
  )
}

format_number <- function(x) {
  format(signif(x, 4), big.mark = ",", scientific = FALSE, trim = TRUE, drop0trailing = TRUE)
}

format_count <- function(x) {
  whole <- format(x, big.mark = ",", scientific = FALSE, trim = TRUE)
  ifelse(x == round(x), whole, format_number(x))
}

# Seconds in the largest of s, ms, us that keeps the number at least 1 (in
# absolute value), with 4 significant digits.
format_seconds <- function(x) {
  scales <- c(s = 1, ms = 1e-3, "\u00b5s" = 1e-6, ns = 1e-9)
  vapply(x, function(v) {
    if (!is.finite(v) || v == 0) {
      return(paste(format_number(v), "s"))
    }
    at <- which(abs(v) >= scales)
    at <- if (length(at)) at[[1]] else length(scales)
    paste(format_number(v / scales[[at]]), names(scales)[[at]])
  }, "")
}

# Bytes in B, KiB, MiB, GiB, TiB (powers of 1024), one decimal from KiB on.
format_bytes <- function(x) {
  units <- c("B", "KiB", "MiB", "GiB", "TiB", "PiB")
  vapply(x, function(v) {
    if (!is.finite(v)) {
      return(paste(v, "B"))
    }
    power <- if (abs(v) < 1024) 0L else min(floor(log(abs(v), 1024)), length(units) - 1L)
    if (power == 0L) {
      return(paste(format_count(v), "B"))
    }
    paste(formatC(v / 1024^power, format = "f", digits = 1, big.mark = ","), units[[power + 1L]])
  }, "")
}

# `x` (numbers in `unit`) as go tool pprof -top prints amounts ("2.51s",
# "406.25KiB", "595"): each number in the largest unit that keeps it at least
# 1, with at most two decimals and no space before the unit. Times in s, ms, us
# or ns; bytes in binary units (KiB, MiB, ...); counts as numbers with
# thousands separators; any other unit after the number.
format_compact_amount <- function(x, unit) {
  unit <- if (is.null(unit) || is.na(unit)) "" else unit
  scales <- switch(unit,
    nanoseconds = c(s = 1e9, ms = 1e6, us = 1e3, ns = 1),
    seconds = c(s = 1, ms = 1e-3, us = 1e-6, ns = 1e-9),
    bytes = c(PiB = 1024^5, TiB = 1024^4, GiB = 1024^3, MiB = 1024^2, KiB = 1024, B = 1),
    c("1" = 1)
  )
  at <- vapply(abs(x), function(v) {
    fits <- which(is.finite(v) & v >= scales)
    if (length(fits)) fits[[1]] else length(scales)
  }, 1L)
  text <- formatC(x / scales[at], format = "f", digits = 2, big.mark = ",")
  text <- sub("(\\.[0-9]*[1-9])0+$", "\\1", sub("\\.0+$", "", text))
  text[text == "-0"] <- "0"
  suffix <- if (length(scales) > 1) {
    names(scales)[at]
  } else if (unit %in% c("", "count")) {
    ""
  } else {
    paste0(" ", unit)
  }
  out <- paste0(text, suffix)
  out[x %in% 0] <- "0"
  out[!is.finite(x)] <- format(x[!is.finite(x)])
  out
}
