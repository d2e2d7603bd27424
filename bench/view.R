# Benchmark: every interaction of the browser view, before (the 2.2.0 viewer)
# and after (this version), in one run, with ratios.
#
# Inputs: Rprof files of 1e4, 1e5 and 1e6 samples (bench/scale-inputs.R: a
# real recording with memory and line profiling, its stack lines repeated;
# every sample has its time, so the view carries the time order), whose
# merged call trees have about 550 nodes, and `wide-1e6`, an Rprof file of
# 1e6 samples drawn from 47 000 random stacks (made here) whose merged call
# tree has about 1e5 nodes: the size the view must answer within 100 ms at.
#
# For each version, in its own R process from its own library: the time
# profile_view(file = ) takes in R (elapsed and CPU: the machine is shared)
# and the HTML file's size. Then, in headless chromium, each page is driven
# with real events by bench/view-driver.mjs (through tests/browser/driver.mjs):
# opening it (navigation to the first drawing), each view, the sample type,
# search, hovering, selecting and zooming into a frame, Backspace, double
# click, back and forward, wheel zoom and drag pan in the flame graph and the
# time order, each refinement added and removed, the exports, copying the
# link and reopening the page with it, the source panel and its splitter.
# A step's time is from the event to the next frame on screen (the slowest
# of its events), the median of 3 fresh browsers. Steps the older view does
# not have are n/a. The browser's console errors, uncaught exceptions and
# requests (other than the page's own file) are counted per page.
#
# Before: the view of 2.2.0 (commit d84b08d), installed into
# bench/data/lib-2.2.0, or the library named by PROFILE_VIEW_BEFORE_LIB.
# After: this directory, installed into bench/data/lib-after (again at each
# run), or the library named by PROFILE_VIEW_AFTER_LIB. Both built with the
# same cargo settings (no LTO).
#
# Usage, from the package root after `bash dev/vendor-js.sh` (the driver's
# npm modules):
#   Rscript bench/view.R
# Some of it: PROFILE_VIEW_INPUTS (names of inputs, comma separated, as
# "1e6,wide-1e6") and PROFILE_VIEW_STEPS (a regular expression of the steps'
# names, as "view: Top|time order"; the others n/a).
# Results are recorded in bench/README.md.

source("bench/scale-inputs.R")

driver <- file.path("bench", "view-driver.mjs")
stopifnot(file.exists(file.path("tests", "browser", "node_modules", "playwright-core")))
cargo_env <- c("CARGO_PROFILE_RELEASE_LTO=false", "CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16")

# Installs the package from `src` (a directory) into `lib`.
install_into <- function(src, lib) {
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  log <- file.path(dirname(lib), paste0(basename(lib), "-install.log"))
  status <- system2(file.path(R.home("bin"), "R"),
    c("CMD", "INSTALL", "--no-multiarch", "-l", shQuote(lib), shQuote(src)),
    stdout = log, stderr = log, env = cargo_env
  )
  if (status != 0) stop("installing ", src, " failed: see ", log)
  invisible(lib)
}

install_before <- function(lib = file.path("bench", "data", "lib-2.2.0"), commit = "d84b08d") {
  given <- Sys.getenv("PROFILE_VIEW_BEFORE_LIB")
  if (nzchar(given)) {
    return(given)
  }
  if (file.exists(file.path(lib, "profile", "DESCRIPTION"))) {
    return(lib)
  }
  src <- tempfile("profile-2.2.0-")
  dir.create(src)
  status <- system(sprintf("git archive %s | tar -x -C %s", commit, shQuote(src)))
  if (status != 0) stop("git archive of ", commit, " failed")
  install_into(src, lib)
}

install_after <- function(lib = file.path("bench", "data", "lib-after")) {
  given <- Sys.getenv("PROFILE_VIEW_AFTER_LIB")
  if (nzchar(given)) given else install_into(".", lib)
}

# An Rprof file of `n` samples, each one of `n_stacks` stacks that are random
# paths of a tree of functions (each level picks one of `branching` callees
# of the frame above, a name among `n_functions`), drawn with a skew (the
# stacks' weights fall as 1/rank, as a real profile's few hot paths), in runs
# of a few equal samples, as a recording's. About 1e5 nodes in the merged
# tree.
make_wide_input <- function(path = file.path("bench", "data", "rprof-wide-1e6.out"), n = 1e6,
                            n_stacks = 4.7e4, branching = 6, n_functions = 4000, seed = 42) {
  if (file.exists(path)) {
    return(path)
  }
  set.seed(seed)
  depth <- sample(4:11, n_stacks, replace = TRUE)
  id <- rep(1L, n_stacks)
  frames <- vector("list", max(depth))
  for (level in seq_len(max(depth))) {
    choice <- sample.int(branching, n_stacks, replace = TRUE, prob = branching:1)
    id <- as.integer((id * 131L + choice * 7919L) %% n_functions) + 1L
    frames[[level]] <- ifelse(level <= depth, sprintf("\"fn_%04d\"", id), NA)
  }
  stacks <- do.call(cbind, rev(frames))
  lines <- apply(stacks, 1, function(s) paste0(paste(s[!is.na(s)], collapse = " "), " "))
  # every stack at least once (the whole tree), the rest by weight, in runs
  weights <- 1 / seq_len(n_stacks)
  order <- c(seq_len(n_stacks), sample.int(n_stacks, n / 4, replace = TRUE, prob = weights))
  picked <- rep_len(rep(order, each = 4), n)
  writeLines(c("sample.interval=10000", lines[picked]), path)
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
  classes <- c("character", rep("numeric", 3))
  rows <- utils::read.table(text = out, col.names = columns, colClasses = classes)
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

# The driver's job on one page: per step, the median of the runs' times (NA
# where the page lacks the step), and what the browser reported.
time_page <- function(html, runs = 3) {
  path <- tempfile(fileext = ".json")
  job <- list(command = "interactions", html = html, runs = runs, width = 1200, height = 800)
  if (nzchar(Sys.getenv("PROFILE_VIEW_STEPS"))) job$steps <- Sys.getenv("PROFILE_VIEW_STEPS")
  jsonlite::write_json(job, path, auto_unbox = TRUE)
  out <- system2("node", c(driver, shQuote(path)), stdout = TRUE)
  result <- jsonlite::fromJSON(paste(out, collapse = ""), simplifyVector = FALSE)$runs
  steps <- names(result[[1]]$times)
  ms <- vapply(steps, function(step) {
    x <- unlist(lapply(result, function(r) r$times[[step]]))
    if (length(x)) stats::median(x) else NA_real_
  }, 0)
  count <- function(what) sum(vapply(result, function(r) length(r[[what]]), 0L))
  failed <- lapply(result, function(r) paste0(names(r$errors), ": ", unlist(r$errors)))
  failed <- unique(unlist(failed))
  list(
    times = data.frame(step = steps, ms = unname(ms)),
    reported = data.frame(
      console_errors = count("console_errors"), exceptions = count("exceptions"),
      requests = count("requests"), dialogs = count("dialogs"),
      failed_steps = length(failed[nzchar(failed) & failed != ": "])
    ),
    failures = failed[failed != ": "],
    details = unique(unlist(lapply(result, function(r) {
      c(r$console_errors, r$exceptions, r$requests)
    })))
  )
}

dir <- tempfile("view-bench-")
dir.create(dir)
inputs <- c(
  stats::setNames(scale_inputs(c(1e4, 1e5, 1e6)), c("1e4", "1e5", "1e6")),
  "wide-1e6" = make_wide_input()
)
if (nzchar(Sys.getenv("PROFILE_VIEW_INPUTS"))) {
  inputs <- inputs[strsplit(Sys.getenv("PROFILE_VIEW_INPUTS"), ",", fixed = TRUE)[[1]]]
}
before <- install_before()
after <- install_after()
load_start <- readLines("/proc/loadavg")
started <- format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")

rows <- rbind(write_views(before, inputs, dir, "before"), write_views(after, inputs, dir, "after"))
rows$nodes <- vapply(rows$html, tree_nodes, 0)
# (the pages of both versions alternated, input by input: the same load)
pages <- vector("list", nrow(rows))
for (i in order(rows$input, rows$version != "before")) pages[[i]] <- time_page(rows$html[[i]])

cat(sprintf(
  "R %s, %s, %s; %s; load average %s (start) %s (end)\n", getRversion(), R.version$platform,
  system2("chromium", "--version", stdout = TRUE), started, load_start, readLines("/proc/loadavg")
))
files <- rows[c("version", "input", "nodes", "view_s", "view_cpu_s")]
files$html_mb <- rows$html_bytes / 1e6
print(files[order(files$input, files$version != "before"), ], digits = 3, row.names = FALSE)

reported <- cbind(rows[c("version", "input")], do.call(rbind, lapply(pages, `[[`, "reported")))
cat("\nWhat the browser reported (sums over the runs of each page):\n")
print(reported, row.names = FALSE)
for (i in seq_along(pages)) {
  for (line in c(pages[[i]]$failures, pages[[i]]$details)) {
    cat(rows$version[[i]], rows$input[[i]], line, "\n")
  }
}

cat("\nInteractions, ms from the event to the next frame on screen (median of 3 runs):\n")
for (input in names(inputs)) {
  b <- pages[[which(rows$input == input & rows$version == "before")]]$times
  a <- pages[[which(rows$input == input & rows$version == "after")]]$times
  table <- merge(a, b, by = "step", all = TRUE, suffixes = c("_after", "_before"), sort = FALSE)
  table <- table[match(a$step, table$step), c("step", "ms_before", "ms_after")]
  table$ratio <- table$ms_after / table$ms_before
  nodes <- rows$nodes[rows$input == input & rows$version == "after"]
  cat(sprintf("\n%s (%g tree nodes):\n", input, nodes))
  print(table, digits = 3, row.names = FALSE)
}
