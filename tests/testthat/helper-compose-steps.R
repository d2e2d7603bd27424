# The steps of the composition suite's pipelines (see helper-compose.R). A
# step is list(kind, source = the code of a profile read into `y` first, or
# NULL; code = the lines that change `x`; check = function(before, after, y,
# env) giving a list of problems, each list(message, known = NULL or the part
# of issue 32 that owns the defect)).

compose_problem <- function(message, known = NULL) list(message = message, known = known)

compose_totals_difference <- function(got, expected) {
  keys <- union(names(got), names(expected))
  value <- function(v) ifelse(is.na(v[keys]), 0, v[keys])
  bad <- abs(value(got) - value(expected)) > 1e-9 * pmax(1, abs(value(expected)))
  if (!any(bad)) {
    return("")
  }
  paste(sprintf(
    "%s: %s, expected %s", keys[bad], format(value(got)[bad], digits = 15),
    format(value(expected)[bad], digits = 15)
  ), collapse = "; ")
}

# The summable types of all the profiles given (a type that comes in
# several units cannot be summarised).
compose_common_types <- function(...) {
  Reduce(intersect, lapply(list(...), function(x) compose_types(compose_totals(x))))
}

compose_add_totals <- function(a, b, sign = 1) {
  keys <- union(names(a), names(b))
  value <- function(v) ifelse(is.na(v[keys]), 0, v[keys])
  stats::setNames(value(a) + sign * value(b), keys)
}

# (`only`: compare only the types of `expected`, for writers that add types
# of their own, as write_pprof() adds cpu time to Rprof ticks; `framed`: the
# samples with frames only.)
check_totals <- function(got, expected, what, only = FALSE, framed = FALSE) {
  totals <- compose_totals(got, framed = framed)
  if (only) totals <- totals[intersect(names(totals), names(expected))]
  d <- compose_totals_difference(totals, expected)
  if (nzchar(d)) list(compose_problem(paste0(what, ": totals differ: ", d))) else list()
}

# Summaries by function and by line of `got` against `expected(type, by)`
# (a compose_summary() data frame), for each summable type of both.
check_summaries <- function(got, types, expected, what, bys = c("function", "line")) {
  problems <- list()
  for (type in types) {
    for (by in bys) {
      d <- compose_summary_difference(compose_summary(got, type, by), expected(type, by))
      if (nzchar(d)) {
        problems <- c(problems, list(compose_problem(sprintf(
          "%s: profile_summary(type = \"%s\", by = \"%s\") differs: %s", what, type, by, d
        ))))
      }
    }
  }
  problems
}

# The sample ids and values of a profile, as "id type value" strings.
compose_sample_rows <- function(x) {
  tables <- dm::dm_get_tables(compose_local(x), keyed = FALSE)
  v <- tables$sample_values
  v <- v[v$sample_id %in% tables$samples$sample_id, , drop = FALSE]
  paste(v$sample_id, v$type, sprintf("%.17g", v$value))
}

# A step that keeps some samples, unchanged: its rows are among those before.
check_kept_samples <- function(before, after, what) {
  extra <- setdiff(compose_sample_rows(after), compose_sample_rows(before))
  if (length(extra)) {
    list(compose_problem(sprintf(
      "%s: %d sample values not in the profile before, e.g. %s", what, length(extra), extra[[1]]
    )))
  } else {
    list()
  }
}

# Each kept sample's stack is its stack before with frames left out (a verb
# on frames never adds, reorders or changes one).
check_subsequence_stacks <- function(before, after, what) {
  stacks <- function(x) {
    s <- dm::dm_get_tables(compose_local(x), keyed = FALSE)$sample_locations
    s <- s[order(s$sample_id, s$depth), ]
    split(s$location_id, s$sample_id)
  }
  a <- stacks(after)
  b <- stacks(before)
  ids <- names(a)
  if (length(ids) > 500L) ids <- ids[round(seq(1, length(ids), length.out = 500L))]
  bad <- Filter(function(id) {
    old <- b[[id]]
    new <- a[[id]]
    if (is.null(old)) {
      return(TRUE)
    }
    !compose_is_subsequence(new, old)
  }, ids)
  if (length(bad)) {
    list(compose_problem(sprintf(
      "%s: the stack of sample %s is not its stack before with frames left out", what, bad[[1]]
    )))
  } else {
    list()
  }
}

compose_is_subsequence <- function(new, old) {
  at <- 0L
  for (v in new) {
    found <- which(old[seq_along(old) > at] == v)
    if (!length(found)) {
      return(FALSE)
    }
    at <- at + found[[1]]
  }
  TRUE
}

# ---- the steps ---------------------------------------------------------------

compose_quote <- function(s) encodeString(s, quote = "\"")

# A pattern matching a function of `x`: its whole name, or its first
# characters, quoted as a literal (Go's \Q...\E).
compose_pattern <- function(x) {
  names <- dm::dm_get_tables(compose_local(x), keyed = FALSE)$functions$name
  names <- names[!is.na(names) & nzchar(names) & !grepl("\\E", names, fixed = TRUE)]
  if (!length(names)) {
    return(NULL)
  }
  name <- names[[sample.int(length(names), 1L)]]
  if (stats::runif(1) < 0.5) {
    paste0("^\\Q", name, "\\E$")
  } else {
    paste0("\\Q", substr(name, 1L, 3L), "\\E")
  }
}

step_combine <- function(x, source) {
  list(
    kind = "combine", source = source, code = "x <- combine_profiles(x, y)",
    check = function(before, after, y, env) {
      expected <- compose_add_totals(compose_totals(before), compose_totals(y))
      problems <- check_totals(after, expected, "combine_profiles()")
      n_y <- nrow(dm::dm_get_tables(compose_local(y))$sources)
      ids <- utils::tail(dm::dm_get_tables(compose_local(after))$sources$source_id, n_y)
      d <- compose_totals_difference(compose_totals(after, sources = ids), compose_totals(y))
      if (nzchar(d)) {
        problems <- c(problems, list(compose_problem(paste(
          "combine_profiles() then the second profile's sources alone: totals differ:", d
        ))))
      }
      types <- compose_common_types(before, y, after)
      problems <- c(problems, check_summaries(after, types, function(type, by) {
        compose_add_summaries(compose_summary(before, type, by), compose_summary(y, type, by))
      }, "combine_profiles() of two profiles against the sum of theirs"))
      c(problems, check_view_lines_added(before, y, after))
    }
  )
}

# The source panel's data of a combination: the values of its parts added,
# and the text of each file that of the parts.
check_view_lines_added <- function(a, b, combined) {
  va <- compose_view_lines(a)
  vb <- compose_view_lines(b)
  vc <- compose_view_lines(combined)
  problems <- list()
  for (type in intersect(intersect(names(va$lines), names(vb$lines)), names(vc$lines))) {
    expected <- compose_add_summaries(va$lines[[type]], vb$lines[[type]])
    d <- compose_summary_difference(vc$lines[[type]], expected)
    if (nzchar(d)) {
      problems <- c(problems, list(compose_problem(sprintf(
        "the view's source lines (type %s) of a combination differ from the sum of its parts': %s",
        type, d
      ))))
    }
  }
  c(problems, unlist(lapply(names(vc$text), check_view_text, va, vb, vc), recursive = FALSE))
}

# The text of `file` in the view of a combination: that of the parts, which
# must agree.
check_view_text <- function(file, va, vb, vc) {
  parts <- Filter(Negate(is.null), list(va$text[[file]], vb$text[[file]]))
  if (length(parts) == 2L && !identical(parts[[1]], parts[[2]])) {
    list(compose_problem(
      sprintf("two profiles with different text of the file %s are combined into one", file)
    ))
  } else if (length(parts) && !identical(vc$text[[file]], parts[[1]])) {
    list(compose_problem(sprintf(
      "the view's text of %s in a combination is not that of its parts", file
    )))
  } else {
    list()
  }
}

step_diff <- function(x, source) {
  list(
    kind = "diff", source = source, code = "x <- profile_diff(x, y)",
    check = function(before, after, y, env) {
      expected <- compose_add_totals(compose_totals(before), compose_totals(y), sign = -1)
      problems <- check_totals(after, expected, "profile_diff()")
      types <- compose_common_types(before, y, after)
      c(problems, check_summaries(after, types, function(type, by) {
        compose_add_summaries(
          compose_summary(before, type, by), compose_summary(y, type, by),
          sign = -1
        )
      }, "profile_diff() against the difference of the summaries"))
    }
  )
}

# focus and ignore: the samples kept, and together they are all the samples.
step_sample_filter <- function(x, verb) {
  pattern <- compose_pattern(x)
  if (is.null(pattern)) {
    return(NULL)
  }
  other <- if (verb == "profile_focus") profile_ignore else profile_focus
  list(
    kind = verb, code = sprintf("x <- %s(x, %s)", verb, compose_quote(pattern)),
    check = function(before, after, y, env) {
      problems <- check_kept_samples(before, after, paste0(verb, "()"))
      rest <- compose_quietly(other(before, pattern))
      both <- compose_add_totals(compose_totals(after), compose_totals(rest))
      problems <- c(problems, check_totals(
        before, both, "profile_focus() and profile_ignore() of one pattern, added"
      ))
      # (the whole profile is the one before the first verb of the pipeline)
      if (!isTRUE(env$filtered)) {
        problems <- c(problems, check_whole_percentages(before, after, verb))
      }
      env$filtered <- TRUE
      problems
    }
  )
}

# After a verb, percentages are of the whole profile, as Go's (issue 32,
# "The verbs' percentages as Go's").
check_whole_percentages <- function(before, after, verb) {
  types <- compose_common_types(before, after)
  if (!length(types)) {
    return(list())
  }
  s <- profile_summary(after, type = types[[1]], n = 5)
  whole <- attr(profile_summary(before, type = types[[1]], n = 0), "grand_total")
  if (!nrow(s) || whole == 0 || profile:::is_db_profile(after)) {
    return(list())
  }
  if (isTRUE(all.equal(s$self_pct, 100 * s$self / whole))) {
    return(list())
  }
  # (Go's -diff_base gives a difference's percentages of the base's total
  # before the filter; this package gives them of the base's total after it)
  diff_base <- dm::dm_get_tables(compose_local(before))$sources$diff_base
  known <- if (any(!is.na(diff_base))) {
    paste(
      "unfixed, reported (a verb's percentages on a profile_diff() are not of",
      "the base's whole total, as Go's -diff_base)"
    )
  }
  list(compose_problem(
    sprintf("%s(): self_pct is not of the whole profile's total (%s)", verb, format(whole)),
    known = known
  ))
}

# A label of `x` (a string value) kept, then dropped: together, all samples.
step_filter_labels <- function(x) {
  labels <- dm::dm_get_tables(compose_local(x), keyed = FALSE)$sample_labels
  if (is.null(labels)) {
    return(NULL)
  }
  text <- paste(labels$key, labels$value)
  labels <- labels[!is.na(labels$value) & !grepl("\\\\E|[=,]", text), , drop = FALSE]
  if (!nrow(labels)) {
    return(NULL)
  }
  row <- labels[sample.int(nrow(labels), 1L), ]
  condition <- sprintf("%s=^\\Q%s\\E$", row$key, row$value)
  list(
    kind = "filter_labels",
    code = sprintf("x <- profile_filter_labels(x, focus = %s)", compose_quote(condition)),
    check = function(before, after, y, env) {
      env$filtered <- TRUE
      problems <- check_kept_samples(before, after, "profile_filter_labels()")
      rest <- compose_quietly(profile_filter_labels(before, ignore = condition))
      both <- compose_add_totals(compose_totals(after), compose_totals(rest))
      c(problems, check_totals(
        before, both, "profile_filter_labels() with focus and with ignore of one label, added"
      ))
    }
  )
}

step_frame_filter <- function(x, verb) {
  pattern <- compose_pattern(x)
  if (is.null(pattern)) {
    return(NULL)
  }
  list(
    kind = verb, code = sprintf("x <- %s(x, %s)", verb, compose_quote(pattern)),
    check = function(before, after, y, env) {
      env$filtered <- TRUE
      c(
        check_kept_samples(before, after, paste0(verb, "()")),
        check_subsequence_stacks(before, after, paste0(verb, "()"))
      )
    }
  )
}

step_select_types <- function(x) {
  totals <- compose_totals(x)
  types <- unique(sub("/[^/]*$", "", names(totals)))
  if (!length(types)) {
    return(NULL)
  }
  keep <- types[sort(sample.int(length(types), sample.int(length(types), 1L)))]
  code <- sprintf("x <- profile_select_types(x, %s)", paste(deparse(keep), collapse = ""))
  list(kind = "select_types", code = code, check = function(before, after, y, env) {
    t <- compose_totals(before)
    check_totals(after, t[sub("/[^/]*$", "", names(t)) %in% keep], "profile_select_types()")
  })
}

step_scale <- function(x) {
  factor <- sample(c(2, 0.5, -1, 3), 1L)
  list(
    kind = "scale", code = sprintf("x <- profile_scale(x, %s)", format(factor)),
    check = function(before, after, y, env) {
      check_totals(after, factor * compose_totals(before), "profile_scale()")
    }
  )
}

step_aggregate <- function(x) {
  check <- function(before, after, y, env) {
    t <- compose_totals(before)
    summed <- !sub("/[^/]*$", "", names(t)) %in% compose_gauges
    problems <- check_totals(after, t[summed], "profile_aggregate()", only = TRUE)
    c(problems, check_summaries(after, compose_types(t), function(type, by) {
      compose_summary(before, type, by)
    }, "profile_aggregate()"))
  }
  list(kind = "aggregate", code = "x <- profile_aggregate(x)", check = check)
}

step_window <- function(x) {
  time <- dm::dm_get_tables(compose_local(x), keyed = FALSE)$samples$time
  time <- time[!is.na(time)]
  if (!length(time)) {
    return(NULL)
  }
  bounds <- sort(signif(stats::quantile(time, stats::runif(2), names = FALSE), 3))
  code <- sprintf("x <- profile_window(x, from = %s, to = %s)", bounds[[1]], bounds[[2]])
  list(kind = "window", code = code, check = function(before, after, y, env) {
    s <- dm::dm_get_tables(compose_local(before), keyed = FALSE)$samples
    inside <- s$sample_id[!is.na(s$time) & s$time >= bounds[[1]] & s$time < bounds[[2]]]
    got <- dm::dm_get_tables(compose_local(after), keyed = FALSE)$samples$sample_id
    env$filtered <- TRUE
    problems <- check_kept_samples(before, after, "profile_window()")
    if (!setequal(got, inside)) {
      problems <- c(problems, list(compose_problem(sprintf(
        "profile_window(): %d samples kept, %d have a time in the window",
        length(got), length(inside)
      ))))
    }
    problems
  })
}
