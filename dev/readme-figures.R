# Redraws the figures of README.md from the sample profiles: the static flame
# graph, and screenshots of profile_view() in headless chromium (an Rprof
# profile as a flame graph and in time order, a Go heap profile, a diff)
# taken by tests/browser/driver.mjs.
# Usage, from the package root after installing into .rlib and running
# dev/vendor-js.sh (the driver's npm modules):
#   R_LIBS=.rlib Rscript dev/readme-figures.R
library(profile)
dir.create("man/figures", showWarnings = FALSE, recursive = TRUE)
x <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
grDevices::png("man/figures/README-flamegraph.png", width = 1000, height = 500, res = 96)
profile_flamegraph(x)
grDevices::dev.off()

# The samples of `x` at positions `keep`.
samples_at <- function(x, keep) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  ids <- tables$samples$sample_id[keep]
  for (t in c("samples", "sample_values", "sample_locations")) {
    tables[[t]] <- tables[[t]][tables[[t]]$sample_id %in% ids, ]
  }
  do.call(new_profile_v2, tables)
}

# A screenshot of the view of `profile` after `actions` (see driver.mjs).
screenshot <- function(profile, png, actions = list(), ..., width = 1000, height = 520) {
  html <- tempfile(fileext = ".html")
  profile_view(profile, ..., file = html)
  job <- tempfile(fileext = ".json")
  jsonlite::write_json(list(
    command = "view", html = html, width = width, height = height,
    actions = c(actions, list(list(screenshot = normalizePath(png, mustWork = FALSE))))
  ), job, auto_unbox = TRUE)
  status <- system2("node", c("tests/browser/driver.mjs", job), stdout = FALSE)
  if (status != 0) stop("the browser driver failed for ", png)
}

heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
screenshot(x, "man/figures/README-view-rprof.png", list(list(search = "fib"), list(hover = "lapply")))
# the same samples in time order (a flame chart): Rprof gives each sample its time
screenshot(x, "man/figures/README-view-chart.png", list(list(mode = "chart"), list(hover = "fib")))
screenshot(heap, "man/figures/README-view-heap.png", list(list(hover = "main.allocList")))
# the second half of line.out's samples against the first half
n <- nrow(dm::dm_get_tables(x)$samples)
half <- n %/% 2
later <- profile_diff(samples_at(x, (half + 1):n), samples_at(x, seq_len(half)))
screenshot(later, "man/figures/README-view-diff.png", list(list(hover = "copy.modify")),
  title = "line.out: second half against first half"
)
