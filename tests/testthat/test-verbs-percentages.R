# Percentages after the verbs of R/verbs.R: of the whole profile before the
# verbs by default, of what they left with relative_percentages = TRUE, as go
# tool pprof -top prints them with the verb's flag, without and with
# -relative_percentages. (go_pprof(), go_value_flags() and go_number() are in
# helper-pprof.R and helper-gopprof.R; write_pprof_tmp() and
# quietly_matching() in helper-verbs.R.)

# go tool pprof -top with every node: `rows` (name, flat, flat%, cum, cum%, as
# Go prints the percentages) and `total` (the "of X total" of its header).
go_top_percentages <- function(path, type, unit, flags, relative) {
  lines <- go_pprof("top", path, shQuote(c(
    "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0", go_value_flags(type, unit),
    flags, if (relative) "-relative_percentages"
  )))
  total_line <- grep(" of \\S+ total$", lines, value = TRUE)
  header <- grep("^\\s*flat\\s+flat%", lines)
  rows <- lines[-seq_len(header)]
  row <- "^\\s*(\\S+)\\s+(\\S+)\\s+\\S+\\s+(\\S+)\\s+(\\S+)\\s+(.*)$"
  list(
    total = go_number(sub(".* of (\\S+) total$", "\\1", total_line)),
    rows = data.frame(
      name = sub(row, "\\5", rows),
      flat = go_number(sub(row, "\\1", rows)),
      flat_pct = sub(row, "\\2", rows),
      cum = go_number(sub(row, "\\3", rows)),
      cum_pct = sub(row, "\\4", rows)
    )
  )
}

# Percentages as go tool pprof prints them (R/summary.R, format_percent()).
go_percent <- function(x) profile:::format_percent(x)

# Expects profile_summary() of `filtered` (`x` after a verb) to give go tool
# pprof's -top of `original` under `flags`: values, percentages and the total
# they are of, in both modes.
expect_percentages_as_go <- function(filtered, original, flags, label, type = NULL) {
  types <- go_sample_types(original)
  if (is.null(type)) type <- types$type[[nrow(types)]]
  unit <- types$unit[[match(type, types$type)]]
  for (relative in c(FALSE, TRUE)) {
    what <- paste(label, paste(flags, collapse = " "), if (relative) "-relative_percentages")
    go <- go_top_percentages(original, type, unit, flags, relative)
    s <- profile_summary(filtered, type = type, n = Inf, relative_percentages = relative)
    # (a verb that leaves every sample, as -hide, keeps the whole total)
    whole <- attr(s, "whole_total")
    percent_of <- if (relative || is.null(whole)) attr(s, "grand_total") else whole
    expect_equal(percent_of, go$total, label = paste(what, ": total"))
    # names Go prints once, without " (inline)" (a node of its own)
    once <- go$rows[!grepl(" \\(inline\\)$", go$rows$name) &
      !duplicated(go$rows$name) & !duplicated(go$rows$name, fromLast = TRUE), ]
    ours <- s[match(once$name, s$name), ]
    expect_identical(ours$name, once$name, label = paste(what, ": names"))
    expect_equal(ours$self, once$flat, label = paste(what, ": flat"))
    expect_equal(ours$total, once$cum, label = paste(what, ": cum"))
    expect_identical(go_percent(ours$self_pct), once$flat_pct, label = paste(what, ": flat%"))
    expect_identical(go_percent(ours$total_pct), once$cum_pct, label = paste(what, ": cum%"))
  }
}

test_that("after a verb, percentages are of the whole profile as go tool pprof's, or relative", {
  skip_if_no_go()
  cpu <- sample_path("pprof", "cpu.pb.gz")
  x <- read_pprof(cpu)
  expect_percentages_as_go(profile_focus(x, "main\\."), cpu, "-focus=main\\.", "cpu.pb.gz")
  expect_percentages_as_go(
    profile_ignore(x, "runtime\\.|sync"), cpu, "-ignore=runtime\\.|sync", "cpu.pb.gz"
  )
  expect_percentages_as_go(profile_hide(x, "fib"), cpu, "-hide=fib", "cpu.pb.gz")
  expect_percentages_as_go(profile_show(x, "main"), cpu, "-show=main", "cpu.pb.gz")
  expect_percentages_as_go(
    profile_filter_labels(x, focus = "phase=compute"), cpu, "-tagfocus=phase=compute",
    "cpu.pb.gz"
  )
  # two verbs: Go applies its filters together, to the whole profile
  expect_percentages_as_go(
    profile_ignore(profile_focus(x, "main\\."), "sha256"), cpu,
    c("-focus=main\\.", "-ignore=sha256"), "cpu.pb.gz"
  )
  heap <- sample_path("pprof", "heap.pb.gz")
  expect_percentages_as_go(
    profile_focus(read_pprof(heap), "Builder"), heap, "-focus=Builder", "heap.pb.gz"
  )
})

test_that("percentages of an Rprof profile after a verb are of the whole, as go tool pprof's", {
  skip_if_no_go()
  x <- read_rprof(sample_path("rprof", "1.out"))
  original <- write_pprof_tmp(x)
  expect_percentages_as_go(
    quietly_matching(profile_focus(x, "^fib$")), original, "-focus=^fib$", "1.out",
    type = "samples"
  )
  expect_percentages_as_go(profile_ignore(x, "sort"), original, "-ignore=sort", "1.out",
    type = "samples"
  )
})

test_that("the header says which total the percentages are of", {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  whole <- attr(profile_summary(x, type = "cpu"), "grand_total")
  focused <- profile_focus(x, "main\\.")
  header <- pillar::tbl_sum(profile_summary(focused, type = "cpu"))
  expect_match(header[["Percentages"]], "of the whole profile before the verbs", fixed = TRUE)
  expect_match(header[["Percentages"]], profile:::format_compact_amount(whole, "nanoseconds"),
    fixed = TRUE
  )
  relative <- pillar::tbl_sum(profile_summary(focused, type = "cpu", relative_percentages = TRUE))
  expect_match(relative[["Percentages"]], "of this total (relative_percentages)", fixed = TRUE)
  expect_false("Percentages" %in% names(pillar::tbl_sum(profile_summary(x, type = "cpu"))))
  expect_error(profile_summary(x, relative_percentages = NA), class = "profile_error_argument")
})

test_that("the whole profile's totals go with combine, scale and dm_filter, not to files", {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  y <- read_rprof(sample_path("rprof", "1.out"))
  whole_x <- attr(profile_summary(x, type = "cpu"), "grand_total")
  focused <- profile_focus(x, "main\\.")
  # combined with a whole profile: the whole of both
  both <- combine_profiles(focused, y)
  expect_silent(validate_profile(both))
  s <- profile_summary(both, type = "cpu")
  expect_equal(attr(s, "whole_total"), whole_x)
  expect_equal(s$self_pct, 100 * s$self / whole_x)
  expect_equal(
    attr(profile_summary(both, type = "time"), "whole_total"),
    attr(profile_summary(y, type = "time"), "grand_total")
  )
  # split again by source: each part's own whole
  first <- dm::dm_filter(both, sources = source_id == 1L)
  expect_equal(attr(profile_summary(first, type = "cpu"), "whole_total"), whole_x)
  second <- dm::dm_filter(both, sources = source_id == 2L)
  second_summary <- profile_summary(second, type = "time")
  expect_equal(attr(second_summary, "whole_total"), attr(second_summary, "grand_total"))
  # scaled alike
  scaled <- profile_scale(focused, 2)
  expect_equal(attr(profile_summary(scaled, type = "cpu"), "whole_total"), 2 * whole_x)
  # written and read back: the file holds the filtered profile only
  back <- read_pprof(write_pprof_tmp(focused))
  expect_null(attr(profile_summary(back, type = "cpu"), "whole_total"))
  # a verb that leaves nothing out records nothing
  expect_false("unfiltered_totals" %in% names(profile_aggregate(x)))
})
