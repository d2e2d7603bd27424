# profile_view() and write_speedscope() in a real browser: Debian's chromium,
# headless, driven by tests/browser/driver.mjs (playwright-core). Skipped with a
# message where node, chromium or the driver's npm modules are missing
# (`bash dev/vendor-js.sh` installs the modules).

rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")
pprof_sample <- function(name) system.file("samples", "pprof", name, package = "profile")

view_file <- function(x, ..., env = parent.frame()) {
  path <- withr::local_tempfile(fileext = ".html", .local_envir = env)
  profile_view(x, ..., file = path)
}

# No console error, uncaught error, dialog or request other than the page.
expect_clean_load <- function(result) {
  for (what in c("console", "errors", "dialogs", "requests")) {
    found <- unlist(result[[what]])
    expect_identical(length(found), 0L, label = paste(what, paste(found, collapse = "\n")))
  }
}

# For the functions of `summary` with the largest totals: the frames drawn with
# their name (outermost ones only) are together as wide as the function's share
# of the total, within a pixel.
expect_widths_match_summary <- function(state, summary, n = 6) {
  frames <- view_frames(state)
  width <- frames$width[frames$depth == 0]
  drawn <- drawn_outermost_widths(frames)
  top <- utils::head(summary[order(-summary$total), ], n)
  expected <- top$total / attr(summary, "grand_total") * width
  expect_true(all(top$name %in% names(drawn)))
  expect_lt(max(abs(drawn[top$name] - expected)), 1)
}

test_that(paste(
  "an Rprof profile: loads offline and clean; frames named, as wide as their totals; search",
  "highlights"
), {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x), width = 1200, height = 800,
    actions = list(list(search = "^fib$"), list(hover = "fib"), list(click = "time_round"))
  ))
  expect_clean_load(result)
  states <- result$states
  first <- states[1, ]
  summary <- profile_summary(x, n = Inf)
  frames <- view_frames(first)
  expect_true(all(summary$name[summary$total > 0] %in% frames$name))
  expect_widths_match_summary(first, summary)
  expect_match(first$heading, "total 320", fixed = TRUE)

  # search: the matching frames (and only they) take the highlight colour;
  # the share reported is fib's share of the total
  searched <- view_frames(states[2, ])
  highlight <- "#E600E6"
  expect_true(all(searched$fill[searched$name == "fib"] == highlight))
  expect_false(any(searched$fill[searched$name != "fib"] == highlight))
  fib <- summary$total[summary$name == "fib"] / attr(summary, "grand_total")
  expect_equal(states$search_share[[2]], fib)
  expect_match(states$status[[2]], sprintf("(%.2f%%)", 100 * fib), fixed = TRUE)

  # the tooltip: name, file:line, total and self with percent
  tooltip <- states$tooltip[[3]]
  expect_match(tooltip, "^fib")
  expect_match(tooltip, "recursion.R:[0-9]+total [0-9]+ \\([0-9.]+%\\)self [0-9]+ \\([0-9.]+%\\)")

  # a click zooms: the frame takes the whole width
  zoomed <- view_frames(states[4, ])
  time_round <- zoomed[zoomed$name == "time_round" & !zoomed$faded, ]
  expect_equal(time_round$width, zoomed$width[zoomed$depth == 0])
})

test_that("the sample type switcher changes the totals and the widths", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("memory.out"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(list(type = "alloc_size"), list(type = "duplications"))
  ))
  expect_clean_load(result)
  states <- result$states
  expect_identical(states$type, c("samples", "alloc_size", "duplications"))
  expect_identical(
    states$types[[1]], c("samples (count)", "duplications (count)", "alloc_size (bytes)")
  )
  for (i in 1:3) {
    summary <- profile_summary(x, type = states$type[[i]], n = Inf)
    expect_widths_match_summary(states[i, ], summary)
  }
  expect_match(states$heading[[1]], "total 375", fixed = TRUE)
  expect_match(states$heading[[3]], "total 18,512", fixed = TRUE)
  expect_false(identical(states$frames[[1]]$width, states$frames[[2]]$width))
})

test_that("a Go heap profile opens at go tool pprof's sample type", {
  skip_if_no_browser()
  heap <- read_pprof(pprof_sample("heap.pb.gz"))
  result <- run_browser_job(list(command = "view", html = view_file(heap)))
  expect_clean_load(result)
  state <- result$states[1, ]
  expect_identical(state$type, attr(profile_summary(heap), "sample_type"))
  expect_widths_match_summary(state, profile_summary(heap, n = Inf), n = 4)
})

test_that("a diff profile shows growth and shrinkage in two colours", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  d <- profile_diff(subset_samples(x, 161:320), subset_samples(x, 1:160))
  result <- run_browser_job(
    list(command = "view", html = view_file(d), actions = list(list(hover = "spin")))
  )
  expect_clean_load(result)
  frames <- view_frames(result$states[1, ])
  rgb <- do.call(rbind, regmatches(frames$fill, gregexpr("[0-9]+", frames$fill)))
  rgb <- matrix(as.integer(rgb), ncol = 3)
  grows <- rgb[, 1] == 255 & rgb[, 3] < 255
  shrinks <- rgb[, 3] == 255 & rgb[, 1] < 255
  expect_true(any(grows) && any(shrinks))
  # each frame's colour follows the sign of its node's difference
  tree <- view_tree(view_payload(view_file(d)))
  difference <- (tree$values[[1]]$total_pos + tree$values[[1]]$total_neg)[frames$node + 1]
  expect_identical(grows, difference > 0)
  expect_identical(shrinks, difference < 0)
  expect_match(result$states$heading[[1]], "difference 0 (profile 160, base 160)", fixed = TRUE)
  expect_match(result$states$tooltip[[2]], "profile [0-9]+, base [0-9]+")
})

test_that("the flame chart of an Rprof profile draws its frames in time order", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  expect_false(anyNA(dm::dm_get_tables(x)$samples$time))
  result <- run_browser_job(
    list(command = "view", html = view_file(x), actions = list(list(mode = "chart")))
  )
  expect_clean_load(result)
  chart <- view_frames(result$states[2, ])
  expect_identical(result$states$mode, c("graph", "chart"))
  # the outermost function of each sample, in time order, consecutive repeats
  # collapsed: the depth-1 frames from left to right
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  frames <- merge(tables$sample_locations, tables$locations, by = "location_id")
  frames$name <- tables$functions$name[match(frames$function_id, tables$functions$function_id)]
  outer <- frames[frames$depth == stats::ave(frames$depth, frames$sample_id, FUN = max), ]
  outer <- outer[order(tables$samples$time[match(outer$sample_id, tables$samples$sample_id)]), ]
  level1 <- chart[chart$depth == 1, ]
  expect_identical(level1$name[order(level1$x)], rle(outer$name)$values)
  # widths are numbers of samples
  width <- chart$width[chart$depth == 0]
  expect_equal(sum(level1$width), width)
  first_width <- level1$width[order(level1$x)][[1]]
  expect_lt(abs(first_width - rle(outer$name)$lengths[[1]] / nrow(tables$samples) * width), 1)
})

test_that("speedscope files validate against speedscope's schema and open in its viewer", {
  skip_if_no_browser()
  speedscope <- file.path(browser_test_dir(), "node_modules", "speedscope", "dist", "release")
  dir <- withr::local_tempdir()
  files <- c(
    file.path(system.file("samples", "rprof", package = "profile"), rprof_sample_files),
    list.files(system.file("samples", "pprof", package = "profile"), full.names = TRUE),
    system.file("samples", "proto", "1.out.prof.pb.gz", package = "profile")
  )
  profiles <- lapply(files, function(f) {
    if (grepl("\\.out$", f)) suppressWarnings(read_rprof(f)) else read_pprof(f)
  })
  x <- read_rprof(rprof_sample("line.out"))
  profiles <- c(profiles, list(profile_diff(subset_samples(x, 161:320), subset_samples(x, 1:160))))
  written <- file.path(dir, sprintf("%02d.speedscope.json", seq_along(profiles)))
  for (i in seq_along(profiles)) write_speedscope(profiles[[i]], written[[i]])
  result <- run_browser_job(list(
    command = "speedscope", files = written,
    schema = file.path(speedscope, "file-format-schema.json"),
    viewer = file.path(speedscope, "index.html")
  ))$results
  expect_identical(nrow(result), length(written))
  for (i in seq_along(written)) {
    r <- result[i, ]
    expect_true(r$valid, label = paste(written[[i]], unlist(r$schema_errors)))
    expect_clean_load(r)
    expect_match(r$title, " - speedscope$")
    if (i > length(files)) next # the diff: its base's weights are positive
    sums <- r$profiles[[1]]
    type <- sub(" .*$", "", sums$name)
    for (t in unique(type)) {
      expect_equal(
        sum(sums$weight[type == t]), attr(profile_summary(profiles[[i]], type = t), "grand_total")
      )
    }
  }
})
