# Benchmark: the browser view before (2.1: d3 and d3-flame-graph, SVG) and after
# (2.2: the package's own canvas renderer), in one run, and speedscope files.
#
# Inputs: Rprof files of 1e4, 1e5 and 1e6 samples (bench/scale-inputs.R: a
# real recording with memory and line profiling, its stack lines repeated;
# every sample has its time, so the view carries the flame chart's runs), and
# `wide`, an Rprof file of 47 000 samples whose merged call tree has about 1e5
# nodes (random stacks, made here). For each version, each in its own R
# process from its own library: the time profile_view(file = ) takes in R
# (elapsed and CPU: the machine is shared) and the HTML file's size; in headless chromium (tests/browser/driver.mjs): the
# time from navigation to the first drawing of the flame graph (median of 3
# fresh browsers, job "paint"), and the time a search and a zoom (a click on
# the widest frame below the root) take from the event to the next frame on
# screen, and, for 2.1, until its 300 ms zoom animation has settled (median of
# 5, job "interact"). write_speedscope() is timed for the version after.
#
# 2.1 is main's commit 5e99a85 (version 2.1.9000, the last with d3),
# installed into bench/data/lib-2.1 with its d3 fetched by its own
# dev/vendor-js.sh (npm); this version is installed into bench/data/lib-2.2.
# Both are built with the same cargo settings.
#
# Usage, from the package root after `bash dev/vendor-js.sh` (the driver's
# npm modules):
#   Rscript bench/view.R
# Results are recorded in bench/README.md.

source("bench/scale-inputs.R")

driver <- file.path("tests", "browser", "driver.mjs")
stopifnot(file.exists(file.path("tests", "browser", "node_modules", "playwright-core")))
cargo_env <- c("CARGO_PROFILE_RELEASE_LTO=false", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16")

# Installs the package from `src` (a directory) into `lib`, unless it is there.
install_into <- function(src, lib) {
  if (file.exists(file.path(lib, "profile", "DESCRIPTION"))) {
    return(invisible(lib))
  }
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  log <- file.path(dirname(lib), paste0(basename(lib), "-install.log"))
  status <- system2(file.path(R.home("bin"), "R"),
    c("CMD", "INSTALL", "--no-multiarch", "-l", shQuote(lib), shQuote(src)),
    stdout = log, stderr = log, env = cargo_env
  )
  if (status != 0) stop("installing ", src, " failed: see ", log)
  invisible(lib)
}

install_before <- function(lib = file.path("bench", "data", "lib-2.1"), commit = "5e99a85") {
  if (file.exists(file.path(lib, "profile", "DESCRIPTION"))) {
    return(lib)
  }
  src <- tempfile("profile-2.1-")
  dir.create(src)
  status <- system(sprintf("git archive %s | tar -x -C %s", commit, shQuote(src)))
  if (status != 0) stop("git archive of ", commit, " failed")
  if (system2("bash", c(file.path(src, "dev", "vendor-js.sh"), "--lib")) != 0) {
    stop("2.1's vendor-js.sh failed")
  }
  install_into(src, lib)
}

# An Rprof file of `n` samples whose stacks are random paths of a tree of
# functions (each level picks one of `branching` callees of the frame above,
# a name among `n_functions`), deep enough to give a merged tree of about 1e5
# nodes.
make_wide_input <- function(path = file.path("bench", "data", "rprof-wide.out"), n = 4.7e4,
                            branching = 6, n_functions = 4000, seed = 42) {
  if (file.exists(path)) {
    return(path)
  }
  set.seed(seed)
  depth <- sample(4:11, n, replace = TRUE)
  id <- rep(1L, n)
  frames <- vector("list", max(depth))
  for (level in seq_len(max(depth))) {
    choice <- sample.int(branching, n, replace = TRUE, prob = branching:1)
    id <- as.integer((id * 131L + choice * 7919L) %% n_functions) + 1L
    frames[[level]] <- ifelse(level <= depth, sprintf("\"fn_%04d\"", id), NA)
  }
  stacks <- do.call(cbind, rev(frames))
  lines <- apply(stacks, 1, function(s) paste0(paste(s[!is.na(s)], collapse = " "), " "))
  writeLines(c("sample.interval=10000", lines), path)
  path
}

# Runs `code` (lines of R) in a fresh R process with `lib` first in the
# library path; returns its standard output.
run_in <- function(lib, code) {
  script <- tempfile(fileext = ".R")
  writeLines(code, script)
  out <- system2(file.path(R.home("bin"), "Rscript"), shQuote(script),
    stdout = TRUE, env = paste0("R_LIBS=", shQuote(normalizePath(lib)))
  )
  if (!is.null(attr(out, "status"))) stop("R process failed: ", paste(out, collapse = "\n"))
  out
}

# In the version of `lib`: the HTML views of `inputs` written into `dir`
# (`<name>-<tag>.html`), and the median time of 3 profile_view(file = ) calls.
write_views <- function(lib, inputs, dir, tag) {
  out <- run_in(lib, c(
    "library(profile)",
    sprintf("inputs <- %s", paste(deparse(inputs), collapse = "")),
    sprintf("dir <- %s", deparse(dir)),
    sprintf("tag <- %s", deparse(tag)),
    "for (name in names(inputs)) {",
    "  x <- read_rprof(inputs[[name]])",
    "  html <- file.path(dir, paste0(name, '-', tag, '.html'))",
    "  time <- function() system.time(profile_view(x, file = html))",
    "  t <- lapply(1:3, function(i) time())",
    "  elapsed <- median(vapply(t, function(s) s[['elapsed']], 0))",
    "  cpu <- median(vapply(t, function(s) s[['user.self']] + s[['sys.self']], 0))",
    "  cat(name, elapsed, cpu, file.size(html), '\\n')",
    "}"
  ))
  columns <- c("input", "view_s", "view_cpu_s", "html_bytes")
  rows <- utils::read.table(text = out, col.names = columns)
  rows$version <- tag
  rows$html <- file.path(dir, paste0(rows$input, "-", tag, ".html"))
  rows
}

# The number of nodes of the merged call tree in a view's data.
tree_nodes <- function(html) {
  text <- readChar(html, file.size(html), useBytes = TRUE)
  start_tag <- "<script type=\"application/json\" class=\"profile-view-data\">"
  start <- regexpr(start_tag, text, fixed = TRUE) + nchar(start_tag)
  end <- regexpr("</script>", substr(text, start, nchar(text)), fixed = TRUE)
  jsonlite::fromJSON(substr(text, start, start + end - 2L), simplifyVector = FALSE)$tree$key$length
}

# The job of tests/browser/driver.mjs, its result.
run_driver <- function(job) {
  path <- tempfile(fileext = ".json")
  jsonlite::write_json(job, path, auto_unbox = TRUE)
  out <- system2("node", c(driver, shQuote(path)), stdout = TRUE)
  jsonlite::fromJSON(paste(out, collapse = ""))
}

dir <- tempfile("view-bench-")
dir.create(dir)
sizes <- c(1e4, 1e5, 1e6)
inputs <- c(stats::setNames(scale_inputs(sizes), c("1e4", "1e5", "1e6")), wide = make_wide_input())
before <- install_before()
after <- install_into(".", file.path("bench", "data", "lib-2.2"))
load_before <- readLines("/proc/loadavg")

rows <- rbind(write_views(before, inputs, dir, "2.1"), write_views(after, inputs, dir, "2.2"))
rows$nodes <- vapply(rows$html, tree_nodes, 0)
timings <- lapply(seq_len(nrow(rows)), function(i) {
  page <- list(html = rows$html[[i]], width = 1200, height = 800)
  paint <- run_driver(c(list(command = "paint", runs = 3), page))
  interact <- if (rows$input[[i]] %in% c("1e6", "wide")) {
    run_driver(c(list(command = "interact", runs = 5, search = "^fn_0[0-4]|^fib$"), page))
  } else {
    list(search_ms = NA, zoom_ms = NA, zoom_settled_ms = NA)
  }
  data.frame(
    first_paint_ms = stats::median(paint$first_paint_ms),
    search_ms = interact$search_ms, zoom_ms = interact$zoom_ms,
    zoom_settled_ms = interact$zoom_settled_ms
  )
})
results <- cbind(
  rows[c("version", "input", "nodes", "view_s", "view_cpu_s", "html_bytes")],
  do.call(rbind, timings)
)
results$html_mb <- results$html_bytes / 1e6
results$html_bytes <- NULL

# write_speedscope(), this version
speedscope <- run_in(after, c(
  "library(profile)",
  sprintf("inputs <- %s", paste(deparse(inputs[c("1e4", "1e5", "1e6")]), collapse = "")),
  "for (name in names(inputs)) {",
  "  x <- read_rprof(inputs[[name]])",
  "  json <- tempfile(fileext = '.json')",
  "  time <- function() system.time(write_speedscope(x, json))[['elapsed']]",
  "  s <- median(vapply(1:3, function(i) time(), 0))",
  "  cat(name, s, file.size(json) / 1e6, '\\n')",
  "}"
))
speedscope <- utils::read.table(
  text = speedscope,
  col.names = c("input", "speedscope_s", "speedscope_mb")
)

cat(sprintf(
  "R %s, %s, %s; load average %s (start) %s (end)\n", getRversion(), R.version$platform,
  system2("chromium", "--version", stdout = TRUE), load_before, readLines("/proc/loadavg")
))
print(results[order(results$input, results$version), ], digits = 3, row.names = FALSE)
print(speedscope, digits = 3, row.names = FALSE)
