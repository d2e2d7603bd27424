# Redraws the figures of README.md: the static flame graph of a sample
# profile, and screenshots of each view of profile_view() in headless chromium
# (taken by tests/browser/driver.mjs): the flame graph with the source panel,
# the flame chart in time order, the Top table, the sandwich, the source panel
# with memory per line and a line's frames, refinements made in the page (their
# chips and R code), a flame graph exported as SVG from the page, a Go heap
# profile, and a diff.
# The Rprof views are of a recording made here by profile_record() of the
# workloads of data-raw/rprof-workloads (so that the source panel has their
# text).
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

# The states of the view of `profile` after `actions` (see driver.mjs).
view_states <- function(profile, actions, ..., width = 1200, height = 600) {
  html <- tempfile(fileext = ".html")
  profile_view(profile, ..., file = html)
  job <- tempfile(fileext = ".json")
  jsonlite::write_json(list(
    command = "view", html = html, width = width, height = height, actions = actions
  ), job, auto_unbox = TRUE)
  out <- system2("node", c("tests/browser/driver.mjs", job), stdout = TRUE)
  if (!is.null(attr(out, "status"))) stop("the browser driver failed for ", html)
  jsonlite::fromJSON(paste(out, collapse = ""))$states
}

# A screenshot of the view of `profile` after `actions`.
screenshot <- function(profile, png, actions = list(), ...) {
  shot <- list(screenshot = normalizePath(png, mustWork = FALSE))
  view_states(profile, c(actions, list(shot)), ...)
  invisible(png)
}

# The SVG the view of `profile` exports after `actions` (its Export menu).
exported_svg <- function(profile, svg, actions = list(), ...) {
  states <- view_states(profile, c(actions, list(list(export = "svg"))), ...)
  writeLines(states$exported[[nrow(states)]], svg, useBytes = TRUE)
  invisible(svg)
}

# A recording of the workloads (4 s of CPU time), sourced with their source
# references.
workloads <- new.env()
for (f in list.files(file.path("data-raw", "rprof-workloads"), full.names = TRUE)) {
  sys.source(f, envir = workloads, keep.source = TRUE)
}
set.seed(1)
rec <- local(
  profile_record(
    {
      keep_going <- budget(4)
      while (keep_going()) {
        time_round()
        memory_round()
      }
    },
    interval = 0.005
  ),
  envir = workloads
)

title <- "profile_record() of the workloads"
screenshot(rec, "man/figures/README-view-graph.png",
  list(list(search = "fib"), list(click = "my.fun")),
  title = title
)
# the same samples in time order (a flame chart): Rprof gives each sample its time
# (hovering a round of the workloads: a call of my.fun lasts less than a pixel
# here, drawn inside a grey stretch, not as a frame of its own)
screenshot(rec, "man/figures/README-view-chart.png",
  list(list(mode = "chart"), list(hover = "time_round")),
  title = title
)
screenshot(rec, "man/figures/README-view-top.png",
  list(list(mode = "table"), list(row = "copy.modify")),
  title = title
)
screenshot(rec, "man/figures/README-view-sandwich.png",
  list(list(mode = "table"), list(row = "fib"), list(mode = "sandwich")),
  title = title
)
# memory per line; the frames that ran line 23 of alloc.R stand out
screenshot(rec, "man/figures/README-view-source.png",
  list(list(type = "alloc_size"), list(click = "copy.modify"), list(line = 23)),
  title = title
)
# refined in the page: copy.modify ignored, then a focus on fib and my.fun,
# as chips, and the R code that gives the same profile
screenshot(rec, "man/figures/README-view-refine.png",
  list(
    list(refine = "ignore", pattern = "^copy\\.modify$"),
    list(refine = "focus", pattern = "^(fib|my\\.fun)$"),
    list(search = ""), list(rcode = TRUE)
  ),
  title = title
)
# the flame graph of my.fun exported as SVG from the page
exported_svg(rec, "man/figures/README-view-export.svg", list(list(click = "my.fun")),
  title = title, height = 400
)
heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
screenshot(heap, "man/figures/README-view-heap.png", list(list(hover = "main.allocList")))
# the second half of line.out's samples against the first half
n <- nrow(dm::dm_get_tables(x)$samples)
half <- n %/% 2
later <- profile_diff(samples_at(x, (half + 1):n), samples_at(x, seq_len(half)))
screenshot(later, "man/figures/README-view-diff.png", list(list(hover = "copy.modify")),
  title = "line.out: second half against first half"
)

# Screenshots as 8-bit palette PNGs where that is smaller (ImageMagick's
# `convert`, when installed): the package's tarball stays under CRAN's 5 MB.
if (nzchar(Sys.which("convert"))) {
  for (png in Sys.glob("man/figures/README-view-*.png")) {
    small <- tempfile(fileext = ".png")
    args <- c(shQuote(png), "-strip", "-colors", "256", paste0("PNG8:", small))
    status <- system2("convert", args)
    if (status == 0 && file.exists(small) && file.size(small) < file.size(png)) {
      file.copy(small, png, overwrite = TRUE)
    }
  }
}
