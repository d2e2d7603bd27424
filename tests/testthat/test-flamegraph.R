# profile_flamegraph(): a flame graph drawn with base graphics.

distinct_colours <- function(img) {
  rgb <- round(img[, , 1:3] * 255)
  nrow(unique(matrix(rgb, ncol = 3)))
}

test_that("frames are as wide as their share of the value, callees on callers", {
  x <- v2_from_stacks(c("main;f;g", "main;f", "main;h", "main;f;g"), values = c(1, 2, 4, 1))
  path <- withr::local_tempfile(fileext = ".png")
  grDevices::png(path, width = 600, height = 300)
  frames <- profile_flamegraph(x)
  grDevices::dev.off()
  # worked out by hand: total 8; main 8, f 4 (g 2 on it), h 4; siblings by name
  expect_identical(frames$name, c("root", "main", "f", "g", "h"))
  expect_identical(frames$depth, c(0L, 1L, 2L, 3L, 2L))
  expect_equal(frames$width, c(1, 1, 0.5, 0.25, 0.5))
  expect_equal(frames$start, c(0, 0, 0, 0, 0.5))
  expect_equal(frames$self, c(0, 0, 2, 2, 4))
  expect_equal(frames$total, c(8, 8, 4, 2, 4))
})

test_that("a flame graph renders to PNG: right size, not blank, several colours", {
  skip_if_not_installed("png")
  x <- v2_from_stacks(
    c("main@a.R:1;f@b.R:2;g@c.R:3", "main@a.R:1;f@b.R:2", "main@a.R:1;h@d.R:4", "main@a.R:1;k"),
    values = c(5, 3, 4, 2)
  )
  path <- withr::local_tempfile(fileext = ".png")
  grDevices::png(path, width = 640, height = 360)
  frames <- profile_flamegraph(x, colour_by = "file")
  grDevices::dev.off()
  img <- png::readPNG(path)
  expect_identical(dim(img)[1:2], c(360L, 640L))
  # 4 files in 4 colours, the root and `k` (no file) grey, white and black text
  expect_identical(length(unique(frames$colour)), 5L)
  expect_gte(distinct_colours(img), 6)
  # not blank: a good part of the image is neither white nor one flat colour
  white <- img[, , 1] > 0.99 & img[, , 2] > 0.99 & img[, , 3] > 0.99
  expect_gt(mean(!white), 0.2)

  # the icicle is the same picture upside down
  icicle <- withr::local_tempfile(fileext = ".png")
  grDevices::png(icicle, width = 640, height = 360)
  profile_flamegraph(x, colour_by = "file", icicle = TRUE)
  grDevices::dev.off()
  img2 <- png::readPNG(icicle)
  expect_false(identical(img, img2))
  expect_gt(mean(!(img2[, , 1] > 0.99 & img2[, , 2] > 0.99 & img2[, , 3] > 0.99)), 0.2)
})

test_that("svg and pdf devices work too", {
  x <- v2_from_stacks(c("main;f;g", "main;h"))
  pdf_path <- withr::local_tempfile(fileext = ".pdf")
  grDevices::pdf(pdf_path)
  profile_flamegraph(x)
  grDevices::dev.off()
  expect_gt(file.size(pdf_path), 1000)
  skip_if_not(capabilities("cairo"))
  svg_path <- withr::local_tempfile(fileext = ".svg")
  grDevices::svg(svg_path)
  profile_flamegraph(x)
  grDevices::dev.off()
  expect_match(paste(readLines(svg_path), collapse = ""), "<svg")
})

test_that("narrow frames are left out; labels fit or are cut", {
  x <- v2_from_stacks(c("main;wide", "main;narrow_function_with_a_long_name"), values = c(999, 1))
  grDevices::pdf(NULL)
  withr::defer(grDevices::dev.off())
  frames <- profile_flamegraph(x, min_width = 0.01)
  expect_false("narrow_function_with_a_long_name" %in% frames$name)
  expect_true("wide" %in% frames$name)
  frames <- profile_flamegraph(x, min_width = 0)
  expect_true("narrow_function_with_a_long_name" %in% frames$name)

  graphics::plot.new()
  labels <- fitted_labels(c("short", "a_rather_long_function_name", "wide_enough"),
    width = c(0.5, 0.15, 0.0001), cex = 1
  )
  expect_identical(labels[[1]], "short")
  expect_match(labels[[2]], "^a_.*\\.\\.$")
  expect_lt(graphics::strwidth(labels[[2]]), 0.15)
  expect_identical(labels[[3]], "")
})

test_that("colour groups: file, package, function", {
  x <- v2_from_stacks(
    c(
      "main;utils::head;stats:::median.default",
      "main;f@x.go:1",
      "main;crypto/sha256.(*digest).Write@y.go:2"
    )
  )
  grDevices::pdf(NULL)
  withr::defer(grDevices::dev.off())
  frames <- profile_flamegraph(x, colour_by = "package")
  group <- stats::setNames(frames$group, frames$name)
  expect_identical(
    unname(
      group[c(
        "utils::head", "stats:::median.default", "f", "crypto/sha256.(*digest).Write", "main"
      )]
    ),
    c("utils", "stats", "f", "crypto/sha256", NA)
  )
  expect_identical(frames$colour[frames$name == "main"], "grey80")
  frames <- profile_flamegraph(x, colour_by = "function")
  expect_identical(length(unique(frames$colour)), nrow(frames))
})

test_that("plot() of a v1 object draws its flame graph; bad arguments are refused", {
  v1 <- structure(list(
    meta = tibble::tibble(key = "version", value = "1.0"),
    sample_types = tibble::tibble(type = "samples", unit = "count"),
    samples = tibble::tibble(
      value = c(3L, 1L),
      locations = list(tibble::tibble(location_id = 2:1), tibble::tibble(location_id = 1L))
    ),
    locations = tibble::tibble(location_id = 1:2, function_id = 1:2, line = 0L),
    functions = tibble::tibble(
      function_id = 1:2,
      name = c("main", "f"),
      system_name = c("main", "f"),
      filename = "",
      start_line = 0L
    )
  ), class = "profile_data")
  grDevices::pdf(NULL)
  withr::defer(grDevices::dev.off())
  frames <- plot(v1)
  expect_equal(frames$total, c(4, 4, 3))
  x <- v2_from_stacks("main;f")
  expect_error(profile_flamegraph(x, min_width = 2), class = "profile_error_argument")
  expect_error(profile_flamegraph(x, icicle = NA), class = "profile_error_argument")
  expect_error(profile_flamegraph(x, type = "node_heap"), class = "profile_error_argument")
})

test_that("flame graphs of real profiles render", {
  skip_if_not_installed("png")
  profiles <- list(
    read_rprof(sample_path("rprof", "line.out")), read_pprof(sample_path("pprof", "cpu.pb.gz"))
  )
  for (x in profiles) {
    path <- withr::local_tempfile(fileext = ".png")
    grDevices::png(path, width = 800, height = 400)
    frames <- profile_flamegraph(x)
    grDevices::dev.off()
    img <- png::readPNG(path)
    expect_identical(dim(img)[1:2], c(400L, 800L))
    expect_gte(distinct_colours(img), 10)
    expect_gt(nrow(frames), 20)
    expect_equal(frames$width[[1]], 1)
  }
})
