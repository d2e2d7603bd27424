# Navigation in the browser view (issue 36): the wheel zooms around the
# pointer and dragging pans, in the time order and the flame graph; keys; the
# view's link; exports. Headless chromium, as test-view-browser.R.

test_that("wheel zoom and drag pan change the range in view as the pointer says", {
  skip_if_no_browser()
  x <- read_rprof(system.file("samples", "rprof", "line.out", package = "profile"))
  width <- 1200
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"), width = width, height = 800,
    actions = list(
      list(mode = "chart"), list(wheel = -300, at = 0.25), list(drag = -200),
      list(wheel = 300, at = 0.5), list(wheel = 5000, at = 0.5),
      list(mode = "graph"), list(wheel = -300, at = 0.75)
    )
  ))
  expect_clean_load(result)
  range <- function(i) state_at(result, i)$range
  canvas <- width - 2 * 8 # the page's padding
  # the whole time axis first: the samples' time, each as long as the interval
  whole <- range(2)
  expect_equal(whole$from, 0)
  expect_equal(whole$span, nrow(x$samples) * 0.005, tolerance = 1e-9)
  # the wheel up zooms in, and the time under the pointer (a quarter of the
  # width) stays under it
  zoomed <- range(3)
  expect_lt(zoomed$span, whole$span * 0.75)
  expect_equal(zoomed$from + 0.25 * zoomed$span, whole$from + 0.25 * whole$span,
    tolerance = 2 / canvas * whole$span
  )
  # dragging 200 pixels to the left moves the range right by 200 pixels' time
  panned <- range(4)
  expect_equal(panned$span, zoomed$span)
  expect_equal(panned$from - zoomed$from, 200 / canvas * zoomed$span,
    tolerance = 0.05 * 200 / canvas * zoomed$span
  )
  # the drag was no click on a frame: still the time order, nothing selected
  expect_identical(result$states$mode[[4]], "chart")
  expect_false(any(view_frames(state_at(result, 4))$selected))
  # the wheel down zooms out, never beyond the whole profile
  expect_gt(range(5)$span, panned$span)
  expect_equal(range(6), whole)
  # the frames drawn are those in view, within the canvas
  frames <- view_frames(state_at(result, 4))
  expect_true(all(frames$x >= 0 & frames$x + frames$width <= canvas + 1))
  # (each frame's fill checked against the canvas's pixels)
  expect_identical(sum(result$states$pixels_wrong), 0L)
  # the flame graph zooms under the wheel too
  graph <- range(8)
  expect_lt(graph$span, range(7)$span)
  expect_equal(graph$from + 0.75 * graph$span, range(7)$from + 0.75 * range(7)$span,
    tolerance = 2 / canvas * range(7)$span
  )
})

test_that("keys: / searches, Esc clears, Backspace steps back through the zooms", {
  skip_if_no_browser()
  x <- read_rprof(system.file("samples", "rprof", "line.out", package = "profile"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(
      list(click = "time_round"), list(wheel = -300, at = 0.5),
      list(press = "Backspace"), list(press = "Backspace"),
      list(press = "/"), list(keys = "^fib$"), list(press = "Escape")
    )
  ))
  expect_clean_load(result)
  range <- function(i) state_at(result, i)$range
  # the click zoomed, the wheel zoomed further; each Backspace undoes one
  expect_lt(range(2)$span, range(1)$span)
  expect_lt(range(3)$span, range(2)$span)
  expect_equal(range(4), range(2))
  expect_equal(range(5), range(1))
  # / puts the cursor in the search box, and what is typed searches
  expect_match(result$states$focus[[6]], "pv-search")
  fib <- profile_summary(x, type = "samples", n = Inf)
  fib <- fib$total[fib$name == "fib"] / attr(fib, "grand_total")
  expect_equal(result$states$search_share[[7]], fib)
  # Esc clears the search and the selection
  expect_identical(result$states$search_text[[8]], "")
  expect_identical(result$states$status[[8]], "")
  expect_false(any(view_frames(state_at(result, 8))$selected))
  expect_true(any(view_frames(state_at(result, 2))$selected))
})

test_that("the link of a view reopens the same view: frames, selection, search, refinements", {
  skip_if_no_browser()
  x <- read_pprof(system.file("samples", "pprof", "cpu.pb.gz", package = "profile"))
  html <- view_file(x)
  first <- run_browser_job(list(
    command = "view", html = html,
    actions = list(
      list(refine = "focus", pattern = "^main\\.hashChain$"), list(search = "sha256"),
      list(click = "crypto/sha256.Sum256"), list(wheel = -200, at = 0.3)
    )
  ))
  expect_clean_load(first)
  n <- nrow(first$states)
  before <- state_at(first, n)
  expect_match(before$link, "^#view=graph&type=cpu&select=crypto%2Fsha256.Sum256&search=sha256")
  again <- run_browser_job(list(command = "view", html = html, fragment = before$link))
  expect_clean_load(again)
  after <- state_at(again, 1)
  expect_identical(after$link, before$link)
  expect_identical(after$refinements, before$refinements)
  expect_identical(after$search_text, "sha256")
  expect_equal(after$search_share, before$search_share)
  expect_equal(after$range, before$range)
  keep <- c("name", "x", "width", "fill", "selected")
  expect_equal(view_frames(after)[keep], view_frames(before)[keep])
  expect_true(any(view_frames(after)$selected))
  # the time order too
  rprof <- view_file(read_rprof(system.file("samples", "rprof", "line.out", package = "profile")))
  chart <- run_browser_job(list(
    command = "view", html = rprof,
    actions = list(list(mode = "chart"), list(wheel = -300, at = 0.6))
  ))
  state <- state_at(chart, 3)
  reopened <- state_at(run_browser_job(list(
    command = "view", html = rprof, fragment = state$link
  )), 1)
  expect_identical(reopened$mode, "chart")
  expect_equal(reopened$range, state$range)
  expect_equal(view_frames(reopened)[keep], view_frames(state)[keep])
})

test_that("exports: SVG of the frames drawn, PNG of the canvas, CSV of profile_summary()", {
  skip_if_no_browser()
  x <- read_pprof(system.file("samples", "pprof", "cpu.pb.gz", package = "profile"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "cpu"), width = 1000,
    actions = list(
      list(export = "svg"), list(export = "png"), list(export = "csv"),
      list(mode = "table"), list(refine = "hide", pattern = "^runtime\\."), list(export = "csv")
    )
  ))
  expect_clean_load(result)
  drawn <- view_frames(state_at(result, 1))
  svg <- state_at(result, 2)$exported_svg
  expect_true(svg$parses)
  expect_identical(svg$titles, drawn$name)
  expect_identical(svg$rects, nrow(drawn))
  png <- png::readPNG(jsonlite::base64_dec(state_at(result, 3)$exported))
  expect_identical(dim(png)[[2]], 1000L - 16L)
  # the CSV: every function with its flat and cum, the numbers of
  # profile_summary(), the largest flat first
  check_csv <- function(text, y) {
    csv <- utils::read.csv(text = text, stringsAsFactors = FALSE)
    summary <- profile_summary(y, type = "cpu", n = Inf)
    summary <- summary[summary$self != 0 | summary$total != 0, ]
    expect_setequal(csv$name, summary$name)
    m <- match(summary$name, csv$name)
    expect_equal(csv$flat[m], summary$self)
    expect_equal(csv$cum[m], summary$total)
    expect_false(is.unsorted(rev(csv$flat)))
  }
  check_csv(state_at(result, 4)$exported, x)
  # of the refined profile once refined
  check_csv(state_at(result, 7)$exported, profile_hide(x, "^runtime\\."))
})

test_that("a double click zooms to a frame in one step; back and forward walk the zoom steps", {
  skip_if_no_browser()
  x <- read_rprof(system.file("samples", "rprof", "line.out", package = "profile"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(
      list(dblclick = "time_round"), list(press = "Backspace"), list(press = "Shift+Backspace"),
      list(button = "pv-back"), list(button = "pv-forward"), list(press = "Alt+ArrowLeft"),
      list(press = "Alt+ArrowRight")
    )
  ))
  expect_clean_load(result)
  range <- function(i) state_at(result, i)$range
  # zoomed to the frame: its extent is time_round's samples (the outermost
  # frame of the samples that run it)
  summary <- profile_summary(x, type = "samples", n = Inf)
  frame <- list(from = range(2)$from, span = summary$total[summary$name == "time_round"])
  expect_equal(range(2), frame)
  expect_identical(state_at(result, 2)$mode, "graph")
  # one Backspace goes back to the whole profile: the double click was one step
  whole <- range(1)
  expect_equal(range(3), whole)
  # forward (Shift+Backspace, the toolbar's arrows, Alt+arrows) and back again
  expect_equal(range(4), frame)
  expect_equal(range(5), whole)
  expect_equal(range(6), frame)
  expect_equal(range(7), whole)
  expect_equal(range(8), frame)
})

# The total of function `f` in samples (profile_summary()).
summary_total <- function(x, f) {
  summary <- profile_summary(x, type = "samples", n = Inf)
  summary$total[summary$name == f]
}

test_that("arrow keys move the zoom between frames: callee, caller, the frame beside", {
  skip_if_no_browser()
  x <- read_rprof(system.file("samples", "rprof", "line.out", package = "profile"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(
      list(click = "time_round"), list(press = "ArrowDown"), list(press = "ArrowUp"),
      list(press = "ArrowLeft"), list(press = "ArrowRight"), list(press = "Backspace")
    )
  ))
  expect_clean_load(result)
  selected <- function(i) {
    frames <- view_frames(state_at(result, i))
    unique(frames$name[frames$selected])
  }
  range <- function(i) state_at(result, i)$range
  expect_identical(selected(2), "time_round")
  # Down: the widest callee of the frame in view, as the samples say
  callees <- callers_and_callees(x, "time_round", "samples")$callees
  callees <- callees[callees$name != "(self)", ]
  widest <- callees[which.max(callees$value), ]
  expect_identical(selected(3), widest$name)
  expect_equal(range(3)$span, widest$value)
  # Up: back to its caller
  expect_identical(selected(4), "time_round")
  expect_equal(range(4), range(2))
  # Left: the frame before it under the root, as first drawn; Right: back
  first <- view_frames(state_at(result, 1))
  top <- first[first$depth == 1, ]
  top <- top[order(top$x), ]
  before <- top$name[[match("time_round", top$name) - 1]]
  expect_identical(selected(5), before)
  expect_equal(range(5)$span, summary_total(x, before))
  expect_identical(selected(6), "time_round")
  # each move was a zoom step
  expect_equal(range(7), range(5))
})

test_that("the Sandwich exports as CSV: the function, its callers and callees as the samples say", {
  skip_if_no_browser()
  x <- read_pprof(system.file("samples", "pprof", "cpu.pb.gz", package = "profile"))
  f <- "main.hashChain"
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "cpu"),
    actions = list(
      list(mode = "table"), list(row = f), list(mode = "sandwich"), list(export = "sandwich")
    )
  ))
  expect_clean_load(result)
  csv <- utils::read.csv(text = state_at(result, 5)$exported, stringsAsFactors = FALSE)
  expect_identical(names(csv), c("part", "name", "value"))
  summary <- profile_summary(x, type = "cpu", n = Inf)
  expect_identical(csv$name[csv$part == "function"], f)
  expect_equal(csv$value[csv$part == "function"], summary$total[summary$name == f])
  expected <- callers_and_callees(x, f, "cpu")
  for (side in c("caller", "callee")) {
    rows <- csv[csv$part == side, ]
    rows <- rows[order(rows$name), ]
    want <- expected[[paste0(side, "s")]]
    expect_identical(rows$name, want$name)
    expect_equal(rows$value, want$value)
  }
  # "(self)": the function's own samples (its flat)
  expect_equal(csv$value[csv$name == "(self)"], summary$self[summary$name == f])
})
