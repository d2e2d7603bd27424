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
