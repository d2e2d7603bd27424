# profile_view() without a browser: the view's data read back from the HTML
# file (and, for a database-backed profile, the speedscope file too, read back
# with jsonlite). The browser tests are in test-view-browser.R, those of
# write_speedscope() in test-speedscope.R.

skip_if_not_installed("jsonlite")

rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")
pprof_sample <- function(name) system.file("samples", "pprof", name, package = "profile")

write_view <- function(x, ...) {
  path <- withr::local_tempfile(fileext = ".html", .local_envir = parent.frame())
  expect_identical(profile_view(x, ..., file = path), path)
  view_payload(path)
}

summary_totals <- function(x, type, column = "total") {
  s <- profile_summary(x, type = type, n = Inf)
  stats::setNames(s[[column]], s$name)
}

test_that("the view's tree has profile_summary()'s totals for every sample type", {
  x <- read_rprof(rprof_sample("memory.out"))
  payload <- write_view(x)
  tree <- view_tree(payload)
  types <- vapply(payload$types, `[[`, "", "name")
  # (time: the ticks' time in seconds, see "Time" in ?profile_summary)
  expect_setequal(types, c("samples", "time", "duplications", "alloc_size"))
  for (t in seq_along(types)) {
    v <- tree$values[[t]]
    expected <- summary_totals(x, types[[t]])
    expected <- expected[expected != 0]
    expect_equal(v$total_pos[[1]], attr(profile_summary(x, type = types[[t]]), "grand_total"))
    total <- outermost_sums(tree$name, tree$parent, v$total_pos)
    total <- total[names(total) != "root" & total != 0]
    expect_equal(c(total)[sort(names(total))], expected[sort(names(expected))])
    self <- tapply(v$self_pos, tree$name, sum)
    expected_self <- summary_totals(x, types[[t]], "self")
    expect_equal(self[names(expected_self)], expected_self, ignore_attr = TRUE)
    expect_true(all(v$total_neg == 0))
  }
})

test_that("sample types: gauges are left out, the default is profile_summary()'s", {
  x <- read_rprof(rprof_sample("memory.out"))
  payload <- write_view(x)
  types <- vapply(payload$types, `[[`, "", "name")
  units <- vapply(payload$types, `[[`, "", "unit")
  gauges <- c("small_vector_heap", "large_vector_heap", "node_heap")
  expect_false(any(types %in% gauges))
  expect_identical(units[types == "alloc_size"], "bytes")
  expect_identical(types[[payload$default_type + 1]], attr(profile_summary(x), "sample_type"))
  chosen <- write_view(x, type = "alloc_size")
  expect_identical(types[[chosen$default_type + 1]], "alloc_size")
  expect_profile_error(profile_view(x, type = "node_heap", file = tempfile()), "argument")

  heap <- read_pprof(pprof_sample("heap.pb.gz"))
  payload <- write_view(heap)
  expect_identical(
    vapply(payload$types, `[[`, "", "name"),
    c("alloc_objects", "alloc_space", "inuse_objects", "inuse_space")
  )
  expect_identical(
    payload$types[[payload$default_type + 1]]$name, attr(profile_summary(heap), "sample_type")
  )
})

# Found by the composition suite (test-compose-pipelines.R): a Go CPU profile
# combined with one whose `cpu` is a count refused the view whole, since its
# default type comes in two units.
test_that("a default type in several units: the view opens on the first type it offers", {
  cpu <- read_pprof(pprof_sample("cpu.pb.gz"))
  folded <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;work 3", "main;rest 1"), folded)
  both <- combine_profiles(cpu, read_folded(folded, type = "cpu", unit = "count"))
  payload <- write_view(both)
  types <- vapply(payload$types, `[[`, "", "name")
  expect_identical(types, "samples")
  expect_identical(payload$default_type, 0L)
  tree <- view_tree(payload)
  counts <- cpu$sample_values$value[cpu$sample_values$type == "samples"]
  expect_equal(tree$values[[1]]$total_pos[[1]], sum(counts))
  # a type asked for by name is still refused
  expect_profile_error(profile_view(both, type = "cpu", file = tempfile()), "unsupported")
})

test_that("nodes are functions merged by name, with their file and their line when it is one", {
  x <- v2_from_stacks(
    c("main@a.R:1;f@b.R:2", "main@a.R:1;f@b.R:3", "main@a.R:1;g@c.R:9", "main@a.R:1"),
    values = c(1, 2, 4, 8)
  )
  payload <- write_view(x, title = "hand-built <stacks>")
  tree <- view_tree(payload)
  strings <- unlist(payload$strings)
  key_file <- strings[decode_typed(payload$keys$file) + 1]
  # depth first, siblings by name: root, main, f, g
  expect_identical(tree$name, c("root", "main", "f", "g"))
  expect_identical(tree$parent, c(0, 0, 1, 1))
  expect_identical(tree$line, c(0, 1, 0, 9))
  expect_identical(key_file[tree$key[-1]], c("a.R", "b.R", "c.R"))
  expect_identical(tree$values[[1]]$total_pos, c(15, 15, 3, 4))
  expect_identical(tree$values[[1]]$self_pos, c(0, 8, 3, 4))
  expect_identical(payload$title, "hand-built <stacks>")
  expect_null(payload$runs)
  expect_false(payload$diff)
})

test_that("samples with a time come as runs of equal stacks, in time order", {
  x <- read_rprof(rprof_sample("line.out"))
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  expect_false(anyNA(tables$samples$time))
  payload <- write_view(x)
  tree <- view_tree(payload)
  runs <- lapply(payload$runs[c("leaf", "count", "time", "source")], decode_typed)
  expect_equal(sum(runs$count), nrow(tables$samples))
  expect_equal(sum(decode_typed(payload$runs$weight[[1]])), nrow(tables$samples))
  expect_false(is.unsorted(runs$time))
  # the outermost function of each sample, in time order, runs collapsed
  frames <- merge(tables$sample_locations, tables$locations, by = "location_id")
  frames$name <- tables$functions$name[match(frames$function_id, tables$functions$function_id)]
  depth <- stats::ave(frames$depth, frames$sample_id, FUN = max)
  outer <- frames[frames$depth == depth, c("sample_id", "name")]
  outer <- outer[order(tables$samples$time[match(outer$sample_id, tables$samples$sample_id)]), ]
  expected <- rle(outer$name)$values
  # the same from the runs: the depth-1 ancestor of each run's leaf
  outermost_node <- function(node) {
    while (tree$parent[[node + 1]] != 0) node <- tree$parent[[node + 1]]
    node
  }
  drawn <- tree$name[vapply(runs$leaf, outermost_node, 0) + 1]
  expect_identical(rle(drawn)$values, expected)

  # reversed times reverse the order
  tables$samples$time <- rev(tables$samples$time)
  reversed <- write_view(do.call(new_profile_v2, tables))
  leaf <- decode_typed(reversed$runs$leaf)
  expect_identical(rev(leaf), decode_typed(payload$runs$leaf))
})

test_that("a diff profile keeps both sides: the profile's values and the base's", {
  x <- read_rprof(rprof_sample("line.out"))
  d <- profile_diff(subset_samples(x, 161:320), subset_samples(x, 1:160))
  payload <- write_view(d)
  expect_true(payload$diff)
  tree <- view_tree(payload)
  v <- tree$values[[1]]
  expect_equal(c(v$total_pos[[1]], v$total_neg[[1]]), c(160, -160))
  difference <- outermost_sums(tree$name, tree$parent, v$total_pos + v$total_neg)
  expected <- summary_totals(d, "samples")
  expect_equal(difference[names(expected)], expected, ignore_attr = TRUE)
  # frames that grow and frames that shrink
  expect_true(any(v$total_pos + v$total_neg > 0) && any(v$total_pos + v$total_neg < 0))
})

# A speedscope profile's samples with their weights, sorted.
speedscope_samples <- function(p) {
  stacks <- vapply(p$samples, function(s) paste(unlist(s), collapse = ","), "")
  out <- data.frame(stack = stacks, weight = unlist(p$weights))
  out <- out[order(out$stack, out$weight), ]
  rownames(out) <- NULL
  out
}

# The payload's lines: file, line and per sample type self and total.
view_lines_of <- function(payload, t) {
  files <- vapply(payload$files, `[[`, "", "name")
  v <- lapply(payload$lines$values[[t]], decode_typed)
  tibble::tibble(
    filename = files[decode_typed(payload$lines$file) + 1],
    line = as.integer(decode_typed(payload$lines$line)),
    self = v$self_pos + v$self_neg,
    total = v$total_pos + v$total_neg
  )
}

test_that("the view's source lines have profile_summary(by = 'line')'s values of every type", {
  for (x in list(read_rprof(rprof_sample("line.out")), read_pprof(pprof_sample("cpu.pb.gz")))) {
    payload <- write_view(x)
    types <- vapply(payload$types, `[[`, "", "name")
    for (t in seq_along(types)) {
      lines <- view_lines_of(payload, t)
      lines <- lines[lines$self != 0 | lines$total != 0, ]
      expected <- profile_summary(x, type = types[[t]], by = "line", n = Inf)
      key <- function(d) paste(d$filename, d$line)
      expect_setequal(key(lines), key(expected))
      m <- match(key(expected), key(lines))
      expect_equal(lines$self[m], expected$self)
      expect_equal(lines$total[m], expected$total)
    }
  }
})

test_that("the view carries the source text the profile keeps, and each node's lines", {
  # line.out names its files relative to the package's source tree
  dir <- withr::local_tempdir()
  files <- file.path(
    "data-raw", "rprof-workloads",
    c("rounds.R", "recursion.R", "closures.R", "alloc.R")
  )
  dir.create(file.path(dir, "data-raw", "rprof-workloads"), recursive = TRUE)
  for (f in files) writeLines(paste("# line", 1:60, "of", f), file.path(dir, f))
  x <- read_rprof(rprof_sample("line.out"), source_text = dir)
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  payload <- write_view(x)
  expect_setequal(vapply(payload$files, `[[`, "", "name"), files)
  for (f in payload$files) {
    expect_identical(unlist(f$text), paste("# line", 1:60, "of", f$name), label = f$name)
  }
  # without text (source_text = FALSE): file names and lines, text null
  bare <- write_view(read_rprof(rprof_sample("line.out"), source_text = FALSE))
  without <- read_rprof(rprof_sample("line.out"), source_text = FALSE)
  expect_identical(nrow(dm::dm_get_tables(without)$source_lines), 0L)
  expect_identical(vapply(bare$files, `[[`, "", "name"), vapply(payload$files, `[[`, "", "name"))
  expect_true(all(vapply(bare$files, function(f) is.null(f$text), TRUE)))
  expect_identical(bare$lines, payload$lines)
  # a node's lines are the lines of the frames merged into it: fib's nodes
  # have lines of recursion.R only
  tree <- view_tree(payload)
  node <- decode_typed(payload$lines$node)
  key <- decode_typed(payload$lines$key)
  files <- vapply(payload$files, `[[`, "", "name")
  line_file <- files[decode_typed(payload$lines$file) + 1]
  fib <- which(tree$name == "fib") - 1
  expect_true(all(node %in% (seq_along(tree$name) - 1)))
  expect_true(all(basename(line_file[key[node %in% fib] + 1]) == "recursion.R"))
  # the runs' step: the Rprof interval (5 ms)
  expect_equal(decode_typed(payload$runs$step), 0.005)
})

test_that("database-backed profiles: the same view and speedscope file as in memory", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("dbplyr")
  x <- read_rprof(rprof_sample("memory.out"))
  heap <- read_pprof(pprof_sample("heap.pb.gz"))
  for (backend in c("sqlite", "postgres")) {
    for (p in list(x, heap)) {
      con <- local_db(backend)
      db <- profile_db_append(con, p)
      expect_true(is_db_profile(db))
      expect_identical(write_view(db), write_view(p), label = backend)
      a <- withr::local_tempfile(fileext = ".json")
      b <- withr::local_tempfile(fileext = ".json")
      write_speedscope(db, a)
      write_speedscope(p, b)
      # the same profiles, frames and samples (samples without a time in
      # another order: their order means nothing)
      from_db <- jsonlite::fromJSON(a, simplifyVector = FALSE)
      in_memory <- jsonlite::fromJSON(b, simplifyVector = FALSE)
      expect_identical(from_db$shared, in_memory$shared)
      expect_identical(length(from_db$profiles), length(in_memory$profiles))
      for (i in seq_along(in_memory$profiles)) {
        expect_identical(
          speedscope_samples(from_db$profiles[[i]]),
          speedscope_samples(in_memory$profiles[[i]])
        )
      }
    }
  }
})

test_that("v1 objects and the widget", {
  v1 <- read_rprof(rprof_sample("1.out"), version = "1.0")
  payload <- write_view(v1)
  expect_equal(
    view_tree(payload)$values[[1]]$total_pos[[1]], attr(profile_summary(v1), "grand_total")
  )

  skip_if_not_installed("htmlwidgets")
  x <- read_rprof(rprof_sample("1.out"))
  widget <- profile_view(x, width = 800)
  expect_s3_class(widget, "htmlwidget")
  expect_s3_class(widget$x$data, "json")
  expect_identical(jsonlite::fromJSON(widget$x$data, simplifyVector = FALSE), write_view(x))
  deps <- htmlwidgets::getDependency("profile_view", "profile")
  ours <- deps[[match("profile-view", vapply(deps, `[[`, "", "name"))]]
  scripts <- c(
    "pv-data.js", "pv-pattern.js", "pv-refine.js", "pv-lanes.js", "pv-chart-index.js",
    "pv-chart.js", "pv-chart-merged.js", "pv-chart-waits.js", "pv-flame.js", "pv-panels.js",
    "pv-top.js", "pv-refine-ui.js", "pv-link.js", "pv-export.js", "pv-navigate.js",
    "pv-compare.js", "pv-compare-table.js", "profile-view.js"
  )
  expect_identical(unlist(ours$script), scripts)
  expect_identical(unlist(ours$stylesheet), c("profile-view.css", "pv-compare.css"))
  dir <- system.file(ours$src$file, package = "profile")
  expect_true(all(file.exists(file.path(dir, c(unlist(ours$script), unlist(ours$stylesheet))))))
})

test_that("the file is self-contained: the view's own scripts, styles and data inlined", {
  x <- read_rprof(rprof_sample("1.out"))
  path <- withr::local_tempfile(fileext = ".html")
  profile_view(x, file = path)
  html <- paste(readLines(path, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  expect_false(grepl("<script[^>]+src=", html))
  expect_false(grepl("<link", html, fixed = TRUE))
  # (the SVG export names its XML namespace, an identifier that is never fetched)
  page <- gsub("http://www.w3.org/2000/svg", "", html, fixed = TRUE)
  expect_false(grepl("https?://", sub("<script type=\"application/json\".*", "", page)))
  expect_true(grepl("ProfileView.render", html, fixed = TRUE))
  lib <- system.file("htmlwidgets", "lib", "profile-view", package = "profile")
  for (f in c(profile:::view_scripts, "profile-view.css", "pv-compare.css")) {
    first <- readLines(file.path(lib, f), n = 1)
    expect_true(grepl(first, html, fixed = TRUE), label = f)
  }
  # nothing of d3
  expect_false(grepl("d3js.org|d3-flame-graph", html))
})

test_that("the package ships no third-party JavaScript: only its own view files", {
  lib <- system.file("htmlwidgets", package = "profile")
  files <- sort(list.files(lib, recursive = TRUE))
  expect_identical(files, sort(c(
    "profile_view.js", "profile_view.yaml",
    file.path("lib", "profile-view", c(
      "pv-data.js", "pv-pattern.js", "pv-refine.js", "pv-lanes.js", "pv-chart-index.js",
      "pv-chart.js", "pv-chart-merged.js", "pv-chart-waits.js", "pv-flame.js", "pv-panels.js",
      "pv-top.js", "pv-refine-ui.js", "pv-link.js", "pv-export.js", "pv-navigate.js",
      "pv-compare.js", "pv-compare-table.js", "profile-view.js", "profile-view.css",
      "pv-compare.css"
    ))
  )))
  # each is a readable source file that says it is the package's
  for (f in files[grepl("[.](js|css)$", files)]) {
    expect_match(readLines(file.path(lib, f), n = 2)[[1]], "profile", label = f)
  }
  yaml <- readLines(file.path(lib, "profile_view.yaml"))
  expect_false(any(grepl("d3", yaml)))
})

test_that("profile_view() refuses bad arguments and files it can't write", {
  x <- read_rprof(rprof_sample("1.out"))
  expect_profile_error(profile_view(x, "samples", "extra"), "argument")
  expect_profile_error(profile_view(x, title = 1, file = tempfile()), "argument")
  expect_profile_error(profile_view(x, file = NA_character_), "argument")
  expect_profile_error(profile_view(1, file = tempfile()), "argument")
  expect_profile_error(profile_view(x, type = "cpu", file = tempfile()), "argument")
  expect_profile_error(profile_view(x, file = file.path(tempfile(), "no", "view.html")), "io")
  dir <- withr::local_tempdir()
  expect_profile_error(profile_view(x, file = dir), "io")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), character())
})

test_that("the file is replaced whole and keeps its permissions", {
  skip_on_os("windows")
  x <- read_rprof(rprof_sample("1.out"))
  dir <- withr::local_tempdir()
  path <- file.path(dir, "view.html")
  writeLines("old", path)
  Sys.chmod(path, "640", use_umask = FALSE)
  profile_view(x, file = path)
  expect_identical(format(file.mode(path)), "640")
  html <- paste(readLines(path, warn = FALSE), collapse = "\n")
  expect_true(grepl("ProfileView.render", html, fixed = TRUE))
  # nothing but the file is left in its directory
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "view.html")
})

test_that("the Top table's file is where a function is defined, not where it is called from", {
  # R writes the caller's line in front of a base function (no source
  # references) that is the innermost frame while it evaluates its caller's
  # arguments: `sort` at defs.R:3 in `sort(x + 1)`.
  dir <- withr::local_tempdir()
  defs <- file.path(dir, "defs.R")
  writeLines(c(
    "work <- function(n) {",
    "  x <- runif(n)",
    "  for (i in 1:30) x <- sort(x + 1)",
    "  sum(x)",
    "}",
    "outer <- function() {",
    "  work(1e6) + work(5e5)",
    "}"
  ), defs)
  env <- new.env()
  source(defs, local = env, keep.source = TRUE)
  outer <- env$outer
  x <- profile_record(outer(), interval = 0.005)
  frames <- dm::dm_get_tables(x)$functions
  called_from <- frames$name == "sort" & basename(frames$filename) == "defs.R"
  skip_if_not(any(called_from), "no tick in sort's arguments")
  payload <- view_payload(view_file(x))
  strings <- unlist(payload$strings)
  key_name <- strings[decode_typed(payload$keys$name) + 1]
  key_file <- strings[decode_typed(payload$keys$file) + 1]
  # the oracle: R's own source references of the functions
  defined_in <- function(name) {
    f <- get0(name, envir = env, mode = "function")
    file <- if (is.null(f)) character() else utils::getSrcFilename(f)
    if (length(file)) file else ""
  }
  for (name in intersect(key_name, c("outer", "work", "sort", "runif", "sum"))) {
    expect_identical(basename(key_file[key_name == name]), basename(defined_in(name)),
      label = paste("file of", name)
    )
  }
})

test_that("a base function first seen on its caller's line has no file in the Top table", {
  # As R writes it: the line in front of the innermost frame of a function
  # without source references is its caller's (work's line 3, which calls
  # sort); a line in front of an outer frame is one of that function's own.
  path <- withr::local_tempfile(fileext = ".out")
  writeLines(c(
    "line profiling: sample.interval=5000",
    "#File 1: defs.R",
    "1#3 \"sort\" 1#3 \"work\" 1#7 \"outer\" ",
    "\"order\" \"sort\" 1#3 \"work\" 1#7 \"outer\" ",
    "1#2 \"work\" 1#7 \"outer\" "
  ), path)
  payload <- view_payload(view_file(read_rprof(path)))
  strings <- unlist(payload$strings)
  key_name <- strings[decode_typed(payload$keys$name) + 1]
  key_file <- strings[decode_typed(payload$keys$file) + 1]
  expect_identical(
    key_file[match(c("sort", "order", "work", "outer"), key_name)],
    c("", "", "defs.R", "defs.R")
  )
})

test_that("the Top table's files computed in Rust are those of the R pass they replace", {
  # (the reference: 2.2's R function, kept in helper-view-reference.R, whose
  # results the two tests above judged)
  samples <- c("line.out", "all.out", "toplevel.out", "append.out", "incomplete.out")
  for (name in c(samples, "cut-lines.out.gz")) {
    # (incomplete.out: a warning of its own, tested in test-rprof.R)
    x <- suppressWarnings(read_rprof(rprof_sample(name)))
    both <- view_columns_and_reference(x)
    expect_identical(both$files, both$files_reference, label = name)
  }
  expect_gt(sum(nzchar(both$files)), 5)
  # from databases (all.out: lines and heap sizes), the heap lines too
  x <- read_rprof(rprof_sample("all.out"))
  in_memory <- view_columns_and_reference(x)
  for (backend in c("sqlite", "postgres")) {
    from_db <- view_columns_and_reference(profile_db_append(local_db(backend), x))
    expect_identical(from_db$files, in_memory$files_reference, label = backend)
    expect_identical(from_db$heap, in_memory$heap_reference, label = backend)
    expect_identical(from_db$heap_reference, in_memory$heap_reference, label = backend)
  }
  expect_gt(sum(nzchar(in_memory$files)), 5)
  expect_gt(sum(in_memory$heap$released > 0), 5)
})

test_that("a profile of no sources has a view: a database whose every run was deleted", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), withr::local_tempfile(fileext = ".sqlite"))
  withr::defer(DBI::dbDisconnect(con))
  db <- profile_db_append(con, read_rprof(rprof_sample("memory.out")))
  emptied <- profile_db_delete(con, dplyr::collect(db$sources)$source_id)
  # (the lanes' labels of no sources once failed: "argument is not a character vector")
  filtered <- dm::dm_filter(read_rprof(rprof_sample("memory.out")), sources = source_id < 0L)
  for (x in list(emptied, filtered)) {
    payload <- write_view(x)
    tree <- view_tree(payload)
    expect_identical(tree$name, "root")
    expect_length(payload$sources$label, 0L)
  }
})
