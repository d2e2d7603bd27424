# profile_view(x, base = ): the comparison of profile_compare() sent with the
# view's data (judged by profile_compare() itself and jsonlite's parser), and
# in headless chromium the frames coloured by their function's change and the
# comparison's table, on real recordings and on Go's CPU profiles.

rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")
pprof_sample <- function(dir, name) system.file("samples", dir, name, package = "profile")

# What a frame's fill says: "increase" (reds: full red, equal green and blue),
# "decrease" (blues), "none" (greys) or "other".
fill_change <- function(fill) {
  numbers <- as.integer(unlist(regmatches(fill, gregexpr("[0-9]+", fill))))
  rgb <- matrix(numbers, ncol = 3, byrow = TRUE)
  ifelse(rgb[, 1] == rgb[, 2] & rgb[, 2] == rgb[, 3], "none",
    ifelse(rgb[, 1] == 255 & rgb[, 2] == rgb[, 3] & rgb[, 2] < 255, "increase",
      ifelse(rgb[, 3] == 255 & rgb[, 1] == rgb[, 2] & rgb[, 1] < 255, "decrease", "other")
    )
  )
}

# Every frame drawn (the root aside) has the colour of its function's change
# in `cmp`; functions without a row are grey.
expect_frames_coloured_as <- function(frames, cmp) {
  frames <- frames[frames$depth > 0, ]
  expected <- cmp$change[match(frames$name, cmp$name)]
  expected[is.na(expected)] <- "none"
  expect_identical(fill_change(frames$fill), expected)
}

# The comparison's table in the page (state i of a result, read from the
# driver's JSON whose numbers are JavaScript's shortest exact text) has
# profile_compare()'s rows, in its order, with its numbers and changes.
expect_table_is <- function(result, i, cmp) {
  rows <- result$states$compare[[i]]
  expect_identical(rows$name, cmp$name)
  expect_identical(rows$change, cmp$change)
  for (column in c("base", "x", "delta")) {
    expect_identical(as.double(rows[[column]]), cmp[[column]], label = column)
  }
}

test_that("the page's data holds profile_compare()'s rows, exact", {
  rprof <- function(f) read_rprof(rprof_sample(f))
  base <- combine_profiles(rprof("1.out"), rprof("all.out"), rprof("line.out"))
  x <- combine_profiles(rprof("1.out"), rprof("1.out"), rprof("gc.out"))
  path <- view_file(x, base = base, threshold = 0.1, level = 0.9)
  payload <- view_payload(path)
  cmp <- profile_compare(x, base, threshold = 0.1, level = 0.9)
  sent <- payload$compare
  expect_identical(sent$type, attr(cmp, "sample_type"))
  expect_identical(sent$unit, attr(cmp, "unit"))
  expect_identical(c(sent$level, sent$threshold), c(0.9, 0.1))
  expect_identical(c(sent$runs_x, sent$runs_base), c(3L, 3L))
  rows <- lapply(sent$rows, function(column) {
    vapply(column, function(v) if (is.null(v)) NA else v, if (is.character(column[[1]])) "" else 0)
  })
  expect_identical(rows$name, cmp$name)
  expect_identical(rows$change, cmp$change)
  for (column in c("base", "x", "delta", "lower", "upper", "p_value")) {
    expect_identical(rows[[column]], cmp[[column]], label = column)
  }
  # a ratio of a function new in x (base 0) is null
  expect_identical(rows$ratio, ifelse(is.finite(cmp$ratio), cmp$ratio, NA))
  # the view opens at the compared type, and is x's own view otherwise
  expect_identical(payload$types[[payload$default_type + 1]]$name, attr(cmp, "sample_type"))
  expect_identical(payload[names(payload) != "compare"], view_payload(view_file(x, type = "time")))
})

test_that("the htmlwidget carries the comparison too", {
  skip_if_not_installed("htmlwidgets")
  rprof <- function(f) read_rprof(rprof_sample(f))
  x <- combine_profiles(rprof("1.out"), rprof("all.out"))
  base <- combine_profiles(rprof("gc.out"), rprof("line.out"))
  widget <- profile_view(x, base = base)
  sent <- jsonlite::fromJSON(widget$x$data, simplifyVector = TRUE)$compare
  cmp <- profile_compare(x, base)
  expect_identical(sent$rows$name, cmp$name)
  expect_identical(sent$rows$change, cmp$change)
})

test_that("names are sent as JSON strings that read back the same", {
  names <- c(
    "plain", "quote \" and backslash \\", "</script><b>&amp;", "tab\tnew\nline",
    "\u00e9\u4e2d\u2028", "ctrl \001"
  )
  counts <- matrix(c(50, 60, 70, 80, 90, 100), ncol = 1)
  x <- counts_profile(counts, names = names)
  base <- counts_profile(counts * 2, names = names)
  cmp <- profile_compare(x, base)
  json <- profile:::comparison_json(cmp)
  expect_false(grepl("</script", json, fixed = TRUE))
  back <- jsonlite::fromJSON(json, simplifyVector = TRUE)
  expect_identical(back$rows$name, cmp$name)
  expect_identical(as.double(back$rows$delta), cmp$delta)
  # and the page as a whole parses
  expect_identical(unlist(view_payload(view_file(x, base = base))$compare$rows$name), cmp$name)
})

test_that("profile_view(base = ) refuses what profile_compare() refuses", {
  x <- read_rprof(rprof_sample("1.out"))
  expect_profile_error(profile_view(x, base = "x", file = tempfile()), "argument")
  expect_profile_error(profile_view(x, base = x, level = 2, file = tempfile()), "argument")
  expect_profile_error(profile_view(profile_diff(x, x), base = x, file = tempfile()), "argument")
  heap <- read_pprof(pprof_sample("pprof", "heap.pb.gz"))
  expect_profile_error(profile_view(x, base = heap, file = tempfile()), "argument")
})

test_that("real recordings in the browser: the slower function red, the others grey; the table", {
  skip_on_cran()
  skip_if_no_browser()
  runs <- record_slow_and_fast(n = 5e6)
  cmp <- profile_compare(runs$slow, runs$fast, threshold = 0.2)
  # (the recordings themselves are judged in test-compare.R; here, the view
  # shows what the comparison says, whatever it says)
  skip_if_not(identical(row_of(cmp, "spin_changed")$change, "increase"), "a run too noisy")
  result <- run_browser_job(list(
    command = "view", html = view_file(runs$slow, base = runs$fast, threshold = 0.2),
    width = 1400, height = 800,
    actions = list(list(compare_row = "spin_changed"), list(compare_sort = "delta"))
  ))
  expect_clean_load(result)
  states <- result$states
  first <- state_at(result, 1)
  frames <- view_frames(first)
  expect_true(all(fill_change(frames$fill[frames$name == "spin_changed"]) == "increase"))
  expect_true(all(fill_change(frames$fill[frames$name %in% runs$same]) == "none"))
  expect_true(all(runs$same %in% frames$name))
  expect_frames_coloured_as(frames, cmp)
  # (the frames recorded are those on the canvas: their fill at their left edge)
  expect_true(all(states$pixels_checked > 0))
  expect_identical(sum(states$pixels_wrong), 0L)
  expect_table_is(result, 1, cmp)
  expect_match(first$compare_legend, "vs base: 3 runs vs 3 runs, time self", fixed = TRUE)

  # a click on the row selects the function: its frames (and only they) are
  # outlined, its row marked
  clicked <- state_at(result, 2)
  selected <- view_frames(clicked)
  expect_true(all(selected$selected[selected$name == "spin_changed"]))
  expect_false(any(selected$selected[selected$name != "spin_changed"]))
  expect_identical(clicked$compare$name[clicked$compare$selected], "spin_changed")
  # sorted by the difference, the largest first
  sorted <- state_at(result, 3)$compare
  expect_identical(sorted$name, cmp$name[order(-cmp$delta, method = "radix")])
})

test_that("a profile compared with itself is grey throughout", {
  skip_if_no_browser()
  x <- combine_profiles(read_rprof(rprof_sample("line.out")), read_rprof(rprof_sample("line.out")))
  result <- run_browser_job(list(command = "view", html = view_file(x, base = x)))
  expect_clean_load(result)
  state <- state_at(result, 1)
  frames <- view_frames(state)
  expect_gt(nrow(frames), 5)
  expect_true(all(fill_change(frames$fill) == "none"))
  expect_true(all(state$compare$change == "none"))
  expect_table_is(result, 1, profile_compare(x, x))
})

test_that("Go CPU profiles: the second run against the first, coloured as profile_compare() says", {
  skip_if_no_browser()
  x <- read_pprof(pprof_sample("pprof-second-run", "cpu.pb.gz"))
  base <- read_pprof(pprof_sample("pprof", "cpu.pb.gz"))
  cmp <- profile_compare(x, base)
  expect_identical(attr(cmp, "method"), "sampling")
  result <- run_browser_job(list(
    command = "view", html = view_file(x, base = base), width = 1400,
    actions = list(list(type = "samples"), list(type = "cpu"), list(hover = "main.fib"))
  ))
  expect_clean_load(result)
  state <- state_at(result, 1)
  expect_identical(state$type, attr(cmp, "sample_type"))
  frames <- view_frames(state)
  expect_frames_coloured_as(frames, cmp)
  expect_true(any(cmp$change != "none"))
  expect_table_is(result, 1, cmp)
  # functions only in the base are listed, and have no frame
  only_base <- cmp$name[!cmp$name %in% dm::dm_get_tables(x)$functions$name]
  expect_gt(length(only_base), 0)
  expect_identical(state$compare$name[state$compare$base_only], only_base)
  expect_false(any(only_base %in% frames$name))
  expect_match(state$compare_legend, "sampling noise only", fixed = TRUE)
  # another sample type: x's own colours, and the legend says why
  other <- view_frames(state_at(result, 2))
  expect_true(all(fill_change(other$fill[other$depth > 0]) == "other"))
  expect_match(state_at(result, 2)$compare_legend, "colours for cpu only", fixed = TRUE)
  # back at cpu: the tooltip of a frame gives its function's row
  expect_frames_coloured_as(view_frames(state_at(result, 3)), cmp)
  fib <- row_of(cmp, "main.fib")
  tooltip <- state_at(result, 4)$tooltip
  expect_match(tooltip, "compared with base (self per run)", fixed = TRUE)
  expect_match(tooltip, paste0(fib$change, ", CI "), fixed = TRUE)
})
