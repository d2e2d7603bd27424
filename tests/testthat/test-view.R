# profile_view() and write_speedscope() without a browser: the view's data read
# back from the HTML file, and speedscope files read back with jsonlite. The
# browser tests are in test-view-browser.R.

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
  expect_setequal(types, c("samples", "duplications", "alloc_size"))
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
})

test_that("the file is self-contained: libraries, styles and data inlined", {
  x <- read_rprof(rprof_sample("1.out"))
  path <- withr::local_tempfile(fileext = ".html")
  profile_view(x, file = path)
  html <- paste(readLines(path, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  expect_false(grepl("<script[^>]+src=", html))
  expect_false(grepl("<link", html, fixed = TRUE))
  expect_true(grepl("ProfileView.render", html, fixed = TRUE))
  # d3 and d3-flame-graph are in it
  expect_true(grepl("d3js.org", html, fixed = TRUE))
  expect_true(grepl("d3-flame-graph", html, fixed = TRUE))
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

# ---- write_speedscope() -------------------------------------------------------

read_speedscope <- function(path) jsonlite::fromJSON(path, simplifyVector = FALSE)

# Sum of the weights per sample type (the type is the start of a profile's name).
speedscope_totals <- function(file) {
  type <- vapply(file$profiles, function(p) sub(" .*$", "", p$name), "")
  weight <- vapply(file$profiles, function(p) sum(unlist(p$weights)), 0)
  tapply(weight, type, sum)
}

test_that("write_speedscope(): one profile per type and source, weights adding up to the totals", {
  files <- c(
    file.path(system.file("samples", "rprof", package = "profile"), rprof_sample_files),
    list.files(system.file("samples", "pprof", package = "profile"), full.names = TRUE)
  )
  for (f in files) {
    x <- if (grepl("\\.out$", f)) suppressWarnings(read_rprof(f)) else read_pprof(f)
    path <- withr::local_tempfile(fileext = ".json")
    expect_identical(withVisible(write_speedscope(x, path)), list(value = x, visible = FALSE))
    file <- read_speedscope(path)
    expect_identical(file[["$schema"]], "https://www.speedscope.app/file-format-schema.json")
    totals <- speedscope_totals(file)
    types <- setdiff(
      unique(as.character(x$sample_values$type)),
      c("small_vector_heap", "large_vector_heap", "node_heap")
    )
    for (t in types) {
      # a type without a sample of non-zero value has no profile
      written <- if (t %in% names(totals)) totals[[t]] else 0
      expect_equal(written, attr(profile_summary(x, type = t), "grand_total"), label = paste(f, t))
    }
    n_sources <- length(unique(x$samples$source_id))
    expect_lte(length(file$profiles), length(types) * n_sources)
    for (p in file$profiles) {
      expect_identical(p$type, "sampled")
      expect_equal(p$endValue, sum(unlist(p$weights)))
      expect_length(p$samples, length(p$weights))
    }
    default <- attr(profile_summary(x), "sample_type")
    expect_identical(sub(" .*$", "", file$profiles[[file$activeProfileIndex + 1]]$name), default)
  }
})

test_that("write_speedscope(): frames with file and line, samples in time order", {
  x <- read_rprof(rprof_sample("line.out"))
  expect_false(anyNA(dm::dm_get_tables(x)$samples$time))
  path <- withr::local_tempfile(fileext = ".json")
  write_speedscope(x, path)
  file <- read_speedscope(path)
  or <- function(value, otherwise) if (is.null(value)) otherwise else value
  frame_label <- vapply(
    file$shared$frames, function(f) paste(f$name, or(f$file, ""), or(f$line, 0)), ""
  )
  expect_true(
    any(vapply(file$shared$frames, function(f) !is.null(f$file) && !is.null(f$line), TRUE))
  )
  expect_false(anyDuplicated(frame_label) > 0)
  # every sample's stack, root first, in time order, runs of equal stacks collapsed
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  loc <- tables$locations
  fun <- tables$functions[match(loc$function_id, tables$functions$function_id), ]
  loc_label <- paste(
    fun$name, ifelse(is.na(fun$filename), "", fun$filename), ifelse(is.na(loc$line), 0, loc$line)
  )
  stack <- tables$sample_locations
  rows <- stack[order(stack$sample_id, -stack$depth), ]
  frames <- split(loc_label[match(rows$location_id, loc$location_id)], rows$sample_id)
  stacks <- vapply(frames, paste, "", collapse = ";")
  in_time_order <- as.character(tables$samples$sample_id[order(tables$samples$time)])
  expected <- rle(unname(stacks[in_time_order]))
  p <- file$profiles[[1]]
  written <- vapply(p$samples, function(s) paste(frame_label[unlist(s) + 1], collapse = ";"), "")
  expect_identical(written, expected$values)
  expect_equal(unlist(p$weights), as.double(expected$lengths))
})

test_that("write_speedscope(): a diff's base is written with its own values", {
  x <- read_rprof(rprof_sample("line.out"))
  d <- profile_diff(subset_samples(x, 101:320), subset_samples(x, 1:100))
  path <- withr::local_tempfile(fileext = ".json")
  write_speedscope(d, path)
  file <- read_speedscope(path)
  names <- vapply(file$profiles, `[[`, "", "name")
  expect_length(names, 2)
  expect_match(names[[2]], "diff base")
  expect_equal(vapply(file$profiles, function(p) sum(unlist(p$weights)), 0), c(220, 100))
})

test_that("write_speedscope() refuses bad paths and leaves the old file", {
  x <- read_rprof(rprof_sample("1.out"))
  expect_profile_error(write_speedscope(x, file.path(tempfile(), "x.json")), "io")
  expect_profile_error(write_speedscope(x, NA_character_), "argument")
  expect_profile_error(write_speedscope(1, tempfile()), "argument")
  path <- withr::local_tempfile(fileext = ".json", lines = "old")
  expect_profile_error(write_speedscope(x, dirname(path)), "io")
  expect_identical(readLines(path), "old")
})
