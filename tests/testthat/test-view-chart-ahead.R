# The time order made in idle time after the page's first drawing
# (PV.prepareChart(), pv-chart.js) is the time order made at once: a page
# opened in the flame graph and left until the preparation is done, then
# switched to the time order, draws the frames and grey stretches that the
# same page opened in the time order by its link draws (made as it opens,
# with no preparation), for a recording of R code and for a recording of
# parallel code (lanes, waits).

# The page's view (an expression of the page).
page_view <- "document.querySelector('.profile-view').__profileView"

# The time order of the page of `x` (`width` pixels wide), shown once the page has made it in idle
# time, and the same page opened in the time order by the link of that state.
ahead_and_at_once <- function(x, width = 1100) {
  html <- view_file(x, env = parent.frame())
  ahead <- run_browser_job(list(
    command = "view", html = html, width = width,
    actions = list(
      # the preparation done: its drawing of the whole axis kept
      list(wait = sprintf(
        "(() => { const t = %s.model.chartReady; return !!(t && t.ahead); })()", page_view
      )),
      list(mode = "chart"),
      # the chart shown is the one made ahead (the one made at once has no
      # drawing kept)
      list(wait = sprintf("!!%s.model.chartTree.ahead", page_view), timeout = 5000)
    )
  ))
  expect_clean_load(ahead)
  shown <- state_at(ahead, 4)
  at_once <- run_browser_job(list(
    command = "view", html = html, width = width, fragment = shown$link
  ))
  expect_clean_load(at_once)
  list(ahead = shown, at_once = state_at(at_once, 1))
}

expect_same_time_order <- function(r) {
  expect_identical(r$ahead$mode, "chart")
  expect_identical(r$at_once$mode, "chart")
  expect_gt(nrow(r$ahead$frames), 0L)
  expect_identical(r$ahead$frames, r$at_once$frames)
  expect_identical(r$ahead$merged, r$at_once$merged)
  expect_identical(r$ahead$range, r$at_once$range)
  # what is drawn is on the canvas (each frame's and stretch's pixel)
  expect_identical(r$ahead$pixels_wrong, 0L)
  expect_identical(r$ahead$lanes, r$at_once$lanes)
}

test_that("the time order made in idle time draws what the time order made at once draws", {
  skip_if_no_browser()
  x <- read_rprof(system.file("samples", "rprof", "line.out", package = "profile"))
  # (narrow: blocks narrower than a pixel merged into grey stretches)
  r <- ahead_and_at_once(x, width = 300)
  expect_same_time_order(r)
  expect_true(is.data.frame(r$ahead$merged) && nrow(r$ahead$merged) > 0L)
})

test_that("so does a recording of parallel code, with its lanes and waits", {
  skip_if_no_browser()
  r <- ahead_and_at_once(local_waiting_recording()$x)
  expect_same_time_order(r)
  expect_gt(nrow(r$ahead$lanes), 1L)
})
