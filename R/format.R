#' Print a v2 profile
#'
#' `print()` and `format()` of a v2 profile say what it is: its sources (type,
#' URI or label, the process of a recording of parallel code, start time,
#' duration), the number of samples, its sample types
#' with their units and totals, and its top functions by self value in the
#' sample type `go tool pprof` shows by default (see [profile_summary()]),
#' with `go tool pprof -top`'s columns. The tables are listed last; they are
#' those of the [dm::dm()] the profile is (see "The class" in [profile_v2]).
#' A database-backed profile ([profile_db()]) is described by queries in its
#' database.
#'
#' @param x A v2 profile (class `profile_v2`).
#' @param n_sources The number of sources listed (`Inf` for all).
#' @param n_functions The number of top functions listed.
#' @param ... Unused.
#' @return `format()`: a character vector, one element per line. `print()`:
#'   `x`, invisibly.
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' x
#' format(x, n_functions = 3)
#'
#' heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
#' print(heap)
format.profile_v2 <- function(x, ..., n_sources = 5, n_functions = 5) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  in_db <- is_db_profile(x)
  sources <- if (in_db) dplyr::collect(tables$sources) else tables$sources
  n_samples <- if (in_db) db_count_rows(tables$samples) else nrow(tables$samples)
  described <- tryCatch(
    {
      parts <- summary_parts(x)
      c(format_sample_types(parts), format_top_functions(x, n_functions))
    },
    profile_error = function(e) {
      paste("It cannot be summarised:", conditionMessage(e))
    }
  )
  c(
    sprintf(
      "<profile_v2>%s %s, %s",
      if (in_db) " in a database," else "",
      counted(nrow(sources), "source"), counted(n_samples, "sample")
    ),
    format_sources(sources, n_sources),
    described,
    strwrap(
      sprintf("Tables: %s (a dm: see dm::dm_get_tables())", paste(names(tables), collapse = ", ")),
      exdent = 2
    )
  )
}

#' @rdname format.profile_v2
#' @export
print.profile_v2 <- function(x, ...) {
  cat(format(x, ...), sep = "\n")
  invisible(x)
}

counted <- function(n, what) {
  sprintf("%s %s%s", format(n, big.mark = ",", scientific = FALSE), what, if (n == 1) "" else "s")
}

db_count_rows <- function(tbl) {
  as.numeric(dplyr::pull(dplyr::collect(dplyr::count(tbl))))
}

# One line per source (the first `n`): id, type, label and URI, start time
# (UTC) and duration, where the source has them.
format_sources <- function(sources, n) {
  shown <- utils::head(sources, n)
  if (!nrow(shown)) {
    return(character())
  }
  text <- function(v) if (is.null(v)) rep(NA_character_, nrow(shown)) else as.character(v)
  label <- text(shown[["source_label"]])
  uri <- text(shown$source_uri)
  what <- ifelse(is.na(label), "", sprintf("\"%s\" ", label))
  what <- paste0(what, ifelse(is.na(uri), "", uri))
  what <- trimws(paste0(what, format_processes(shown)))
  stamp <- shown$source_timestamp
  when <- ifelse(
    is.finite(stamp),
    format(as.POSIXct(stamp, origin = "1970-01-01", tz = "UTC"), "%Y-%m-%d %H:%M:%S UTC"),
    ""
  )
  duration <- shown[["duration_nanos"]]
  took <- if (is.null(duration)) {
    rep("", nrow(shown))
  } else {
    vapply(duration, function(d) {
      if (is.finite(d)) format_compact_amount(d, "nanoseconds") else ""
    }, "")
  }
  cells <- cbind(
    format(paste0("  ", shown$source_id)), format(shown$source_type), format(what), when,
    ifelse(nzchar(took), paste("for", took), "")
  )
  lines <- trimws(apply(cells, 1, paste, collapse = "  "), "right")
  more <- nrow(sources) - nrow(shown)
  c(
    "Sources (id, type, label and URI, start, duration):",
    lines,
    if (more > 0) sprintf("  ... and %s", counted(more, "more source"))
  )
}

# The process of each source of a recording of parallel code ("main process
# PID on HOST", after a space), "" where a source has none.
format_processes <- function(sources) {
  pid <- sources[["process_id"]]
  if (is.null(pid)) {
    return(rep("", nrow(sources)))
  }
  role <- sources[["process_role"]]
  host <- sources[["host_name"]]
  role <- ifelse(is.na(role), "", paste0(role, " "))
  on_host <- ifelse(is.na(host), "", paste(" on", host))
  ifelse(is.na(pid), "", sprintf(" (%sprocess %d%s)", role, as.integer(pid), on_host))
}

# One line per sample type: its unit and the total of the samples, in the
# unit's human form; gauges (levels, not amounts) say so instead.
format_sample_types <- function(parts) {
  pairs <- parts$types
  if (!nrow(pairs)) {
    return("Sample types: none")
  }
  gauges <- v2_schema()$gauge_types
  totals <- vapply(seq_len(nrow(pairs)), function(i) {
    type <- pairs$type[[i]]
    if (type %in% gauges) {
      return("(a gauge: heap size at each sample, not summed)")
    }
    n_locations <- vctrs::vec_size(parts$locations)
    totals <- frame_key_totals(parts, type, integer(n_locations), 0L)
    total <- format_compact_amount(totals$grand_total, pairs$unit[[i]])
    if (identical(type, parts$derived$type)) {
      paste(total, sprintf("(%s times the interval)", parts$derived$from))
    } else {
      total
    }
  }, "")
  c(
    "Sample types (unit: total):",
    paste0("  ", format(pairs$type), "  ", format(paste0(pairs$unit, ":")), " ", totals)
  )
}

# The first `n` rows of profile_summary() in go tool pprof -top's columns.
format_top_functions <- function(x, n) {
  s <- profile_summary(x, n = n)
  if (!nrow(s)) {
    return(character())
  }
  unit <- attr(s, "unit")
  pct <- function(v) ifelse(is.na(v), "", format_percent(v))
  cells <- cbind(
    format_compact_amount(s$self, unit), pct(s$self_pct), pct(cumsum(s$self_pct)),
    format_compact_amount(s$total, unit), pct(s$total_pct)
  )
  cells <- rbind(c("flat", "flat%", "sum%", "cum", "cum%"), cells)
  cells <- apply(cells, 2, function(col) formatC(col, width = max(nchar(col))))
  lines <- paste0("  ", apply(cells, 1, paste, collapse = " "), "  ", c("name", s$name))
  c(
    sprintf(
      "Top functions by self %s (%s, of %s total):", attr(s, "sample_type"),
      attr(s, "unit"), format_compact_amount(attr(s, "grand_total"), unit)
    ),
    lines
  )
}
