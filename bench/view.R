# Benchmark: the browser view and speedscope files of large profiles (issue 16).
# For Rprof profiles of 1e4, 1e5 and 1e6 samples (bench/scale-inputs.R: a real
# recording with memory and line profiling, its stack lines repeated), with the
# samples' times: the time profile_view(file = ) takes in R (Rust's data and the
# HTML file), the HTML file's size and its data's, the time from navigation to
# the first drawing of the flame graph in headless chromium (median of 3 fresh
# browsers; tests/browser/driver.mjs, job "paint"), and write_speedscope()'s
# time and size.
#
# Usage, from the package root after installing into .rlib and running
# dev/vendor-js.sh (the driver's npm modules):
#   R_LIBS=.rlib Rscript bench/view.R
# Results are recorded in bench/README.md.

library(profile)
source("bench/scale-inputs.R")

sizes <- c(1e4, 1e5, 1e6)
files <- scale_inputs(sizes)
driver <- file.path("tests", "browser", "driver.mjs")
stopifnot(file.exists(file.path("tests", "browser", "node_modules", "playwright-core")))

median_seconds <- function(expr_fn, times = 3) {
  stats::median(vapply(seq_len(times), function(i) system.time(expr_fn())[["elapsed"]], 0))
}

first_paint_ms <- function(html) {
  job <- tempfile(fileext = ".json")
  writeLines(sprintf('{"command": "paint", "html": "%s", "runs": 3, "width": 1200, "height": 800}', html), job)
  out <- system2("node", c(driver, job), stdout = TRUE)
  ms <- as.numeric(regmatches(out, gregexpr("[0-9.]+", out))[[1]])
  stats::median(ms)
}

dir <- tempfile("view-bench-")
dir.create(dir)
rows <- lapply(seq_along(sizes), function(i) {
  x <- read_rprof(files[[i]])
  # the reader gives every sample its time: the view carries the flame chart's runs
  stopifnot(!anyNA(dm::dm_get_tables(x)$samples$time))
  html <- file.path(dir, sprintf("view-%d.html", as.integer(sizes[[i]])))
  json <- file.path(dir, sprintf("view-%d.speedscope.json", as.integer(sizes[[i]])))
  view_s <- median_seconds(function() profile_view(x, file = html))
  speedscope_s <- median_seconds(function() write_speedscope(x, json))
  libraries <- sum(file.size(file.path(
    system.file("htmlwidgets", "lib", package = "profile"),
    c("d3/d3.min.js", "d3-flame-graph/d3-flamegraph.umd.min.js", "profile-view/profile-view.js", "profile-view/profile-view.css")
  )))
  data.frame(
    samples = as.integer(sizes[[i]]),
    view_s = view_s,
    html_mb = file.size(html) / 1e6,
    data_mb = (file.size(html) - libraries) / 1e6,
    first_paint_ms = first_paint_ms(html),
    speedscope_s = speedscope_s,
    speedscope_mb = file.size(json) / 1e6
  )
})
results <- do.call(rbind, rows)
cat(sprintf(
  "R %s, %s, load average %s\n", getRversion(), R.version$platform,
  paste(readLines("/proc/loadavg"), collapse = "")
))
print(results, digits = 3, row.names = FALSE)
