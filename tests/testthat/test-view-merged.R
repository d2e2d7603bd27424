# The time order's merged stretches: where consecutive frames of a row are each
# narrower than a pixel, the view draws them as one grey block. Hovering it
# says what it holds, a search that matches a frame inside it highlights it,
# and the SVG export has it. Judged against the samples as written to the
# Rprof file (the functions at depth 2, in time order), in headless chromium.

# An Rprof file of `repeats` times the stacks main > f, main > f, main > g,
# main > h (depth-2 frames narrower than a pixel at the view's width), then
# `tail` samples of main > k (a frame wide enough to draw); 1 ms a sample.
merged_rprof <- function(repeats = 1500, tail = 2000) {
  inner <- c(rep(c("f", "f", "g", "h"), repeats), rep("k", tail))
  path <- withr::local_tempfile(fileext = ".out", .local_envir = parent.frame())
  writeLines(c("sample.interval=1000", sprintf("\"%s\" \"main\" ", inner)), path)
  list(path = path, inner = inner)
}

# The depth-2 frames the file holds before its tail: runs of one function.
narrow_frames <- function(inner) {
  runs <- rle(inner[inner != "k"])
  list(
    count = length(runs$values), samples = sum(runs$lengths),
    by_name = tapply(runs$lengths, runs$values, sum)
  )
}

test_that("hovering a merged stretch of the time order says what it holds", {
  skip_if_no_browser()
  input <- merged_rprof()
  x <- read_rprof(input$path)
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"), width = 1000,
    actions = list(list(mode = "chart"), list(hover_merged = 2))
  ))
  expect_clean_load(result)
  chart <- state_at(result, 2)
  merged <- chart$merged
  # the depth-2 row: one stretch of the narrow frames, then k drawn as a frame
  row2 <- merged[merged$row == 2, ]
  expect_identical(nrow(row2), 1L)
  expect_identical(row2$fill, "rgb(200,200,200)")
  expect_identical(row2$pixel, row2$fill)
  frames <- view_frames(chart)
  expect_true("k" %in% frames$name[frames$depth == 2])
  expect_false(any(c("f", "g", "h") %in% frames$name))
  # the tooltip: the frames and samples of the file before its tail, and its
  # functions by their samples (f the most)
  expected <- narrow_frames(input$inner)
  tooltip <- state_at(result, 3)$tooltip
  expect_match(tooltip, paste0(expected$count, " frames merged"), fixed = TRUE)
  expect_match(tooltip, paste0(expected$samples, " samples"), fixed = TRUE)
  grouped <- function(n) format(n, big.mark = ",")
  expect_match(tooltip, paste0("total ", grouped(expected$samples), " "), fixed = TRUE)
  for (name in names(expected$by_name)) {
    expect_match(tooltip, paste0(name, " ", grouped(expected$by_name[[name]]), " ("), fixed = TRUE)
  }
  expect_lt(regexpr(" f ", tooltip), regexpr(" g ", tooltip))
})

test_that("a search highlights the merged stretches holding a matching frame; the SVG has them", {
  skip_if_no_browser()
  input <- merged_rprof()
  x <- read_rprof(input$path)
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"), width = 1000,
    actions = list(
      list(mode = "chart"), list(search = "^h$"), list(export = "svg"),
      list(search = "^k$"), list(search = "^main$")
    )
  ))
  expect_clean_load(result)
  row2 <- function(i) {
    merged <- state_at(result, i)$merged
    merged[merged$row == 2, ]
  }
  # h is inside the stretch: highlighted, drawn so
  expect_identical(row2(3)$fill, "rgb(230,0,230)")
  expect_identical(row2(3)$pixel, "rgb(230,0,230)")
  # k (drawn as a frame) and main (above it) are not inside it
  expect_identical(row2(5)$fill, "rgb(200,200,200)")
  expect_identical(row2(6)$fill, "rgb(200,200,200)")
  expect_identical(row2(6)$pixel, "rgb(200,200,200)")
  # the SVG: parses, has the stretch as a rect titled by what it holds
  svg <- state_at(result, 4)$exported_svg
  expect_true(svg$parses)
  expected <- narrow_frames(input$inner)
  titles <- unlist(svg$titles)
  merged_titles <- titles[grepl("frames merged", titles, fixed = TRUE)]
  expect_length(merged_titles, nrow(state_at(result, 4)$merged))
  expected_title <- paste0(expected$count, " frames merged")
  expect_true(any(startsWith(merged_titles, expected_title)))
  text <- state_at(result, 4)$exported
  expect_match(text, "<g class=\"merged\"><title>", fixed = TRUE)
  expect_match(text, "fill=\"rgb(230,0,230)\"/></g>", fixed = TRUE)
})
