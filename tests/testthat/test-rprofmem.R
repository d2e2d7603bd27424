# read_rprofmem() and write_rprofmem() on files R's allocation profiler wrote,
# judged by profmem::readRprofmem() (Debian's r-cran-profmem): the same
# records, line by line, as profmem reads them.

skip_if_no_rprofmem <- function() {
  if (!isTRUE(capabilities("profmem"))) {
    skip("this R was built without Rprofmem()")
  }
}

# A file of what Rprofmem() records while `code` runs (in this process).
record_rprofmem <- function(code, threshold = 0, path = tempfile(fileext = ".out"),
                            append = FALSE) {
  utils::Rprofmem(path, append = append, threshold = threshold)
  on.exit(utils::Rprofmem(NULL))
  force(code)
  path
}

grow_vector <- function(n) {
  x <- c()
  for (i in seq_len(n)) x <- c(x, i)
  x
}

paste_labels <- function(n) lapply(seq_len(n), function(i) paste0("item", i))

rows_one_by_one <- function(n) {
  df <- data.frame(a = 0, b = "start")
  for (i in seq_len(n)) df <- rbind(df, data.frame(a = i, b = "row"))
  df
}

# Each sample of a profile as profmem has a record: `what` ("alloc" or
# "new page"), `bytes` (NA for a new page, as profmem has it) and `trace`
# (names innermost first), from the tables.
rprofmem_records <- function(x) {
  t <- dm::dm_get_tables(x)
  ids <- t$samples$sample_id
  sv <- t$sample_values[t$sample_values$type == "alloc_space", ]
  bytes <- sv$value[match(ids, sv$sample_id)]
  labels <- t$sample_labels
  page <- ids %in% labels$sample_id[labels$key == "what" & labels$value == "new page"]
  sl <- t$sample_locations[order(t$sample_locations$sample_id, t$sample_locations$depth), ]
  function_id <- t$locations$function_id[match(sl$location_id, t$locations$location_id)]
  names <- t$functions$name[match(function_id, t$functions$function_id)]
  trace <- split(names, factor(sl$sample_id, levels = ids))
  list(
    what = ifelse(page, "new page", "alloc"),
    bytes = ifelse(page, NA_real_, bytes),
    trace = unname(lapply(trace, as.character))
  )
}

profmem_records <- function(path) {
  theirs <- profmem::readRprofmem(path)
  list(
    what = theirs$what,
    bytes = theirs$bytes,
    trace = lapply(theirs$trace, as.character)
  )
}

# Agreement with profmem: every record, then what the issue names (counts of
# allocations and new pages, total bytes, bytes per distinct call stack).
expect_agrees_with_profmem <- function(path) {
  ours <- rprofmem_records(read_rprofmem(path))
  theirs <- profmem_records(path)
  expect_identical(ours, theirs)
  expect_gt(length(theirs$what), 0L)
  stack_bytes <- function(r) {
    key <- vapply(r$trace, paste, "", collapse = ";")
    tapply(r$bytes, key, sum, na.rm = TRUE)
  }
  expect_identical(sum(ours$what == "new page"), sum(theirs$what == "new page"))
  expect_equal(sum(ours$bytes, na.rm = TRUE), sum(theirs$bytes, na.rm = TRUE))
  expect_equal(stack_bytes(ours), stack_bytes(theirs))
}

test_that("read_rprofmem() reads what profmem reads, record by record", {
  skip_if_no_rprofmem()
  skip_if_not_installed("profmem")
  files <- list(
    grown = record_rprofmem(grow_vector(500)),
    lapply = record_rprofmem(paste_labels(300)),
    matrix = record_rprofmem(matrix(runif(1e5), ncol = 100)),
    rows = record_rprofmem(rows_one_by_one(30)),
    threshold = record_rprofmem(grow_vector(3000), threshold = 10000),
    sample = sample_path("rprofmem", "alloc.out.gz")
  )
  appended <- record_rprofmem(grow_vector(100))
  record_rprofmem(matrix(0, 200, 200), path = appended, append = TRUE, threshold = 1000)
  files$appended <- appended
  for (name in names(files)) {
    expect_agrees_with_profmem(files[[name]])
  }
  # the threshold left only allocations above it (and the new pages)
  x <- rprofmem_records(read_rprofmem(files$threshold))
  expect_true(all(x$bytes[x$what == "alloc"] > 10000))
})

test_that("the profile holds allocations as Go's heap profiles name them", {
  path <- sample_path("rprofmem", "alloc.out.gz")
  x <- read_rprofmem(path)
  expect_silent(validate_profile(x))
  t <- dm::dm_get_tables(x)
  expect_identical(t$sources$source_type, "rprofmem")
  expect_identical(t$sources$source_uri, path)
  expect_identical(t$sources$default_sample_type, "alloc_space")
  expect_identical(t$sample_types$type, c("alloc_objects", "alloc_space"))
  expect_identical(t$sample_types$unit, c("count", "bytes"))
  objects <- t$sample_values[t$sample_values$type == "alloc_objects", ]
  expect_true(all(objects$value == 1))
  expect_identical(nrow(objects), nrow(t$samples))
  # the lines of the file, counted apart from the reader
  lines <- readLines(path)
  expect_identical(nrow(t$samples), length(lines))
  expect_identical(nrow(t$sample_labels), sum(startsWith(lines, "new page:")))
  expect_identical(t$functions$name, t$functions$system_name)
  expect_true(all(t$functions$filename == "" & t$locations$line == 0L))
})

test_that("read -> write_rprofmem -> read is equal, and the file is R's", {
  path <- sample_path("rprofmem", "alloc.out.gz")
  x <- read_rprofmem(path)
  out <- tempfile(fileext = ".out")
  expect_identical(write_rprofmem(x, out), x)
  expect_identical(readLines(out), readLines(path))
  y <- read_rprofmem(out, source_uri = path)
  expect_equal(dm::dm_get_tables(y), dm::dm_get_tables(x))
  skip_if_not_installed("profmem")
  expect_identical(profmem_records(out), profmem_records(path))
})

test_that("write_rprofmem() writes a sample of several objects as as many lines", {
  x <- read_rprofmem(sample_path("rprofmem", "alloc.out.gz"))
  # two objects of 3 bytes each per sample: twice the lines, half the bytes
  scaled <- profile_scale(x, 3)
  t <- dm::dm_get_tables(scaled)
  out <- tempfile(fileext = ".out")
  write_rprofmem(scaled, out)
  lines <- readLines(out)
  expect_length(lines, 3L * nrow(t$samples))
  y <- read_rprofmem(out)
  expect_equal(
    profile_summary(y, type = "alloc_space", n = Inf),
    profile_summary(scaled, type = "alloc_space", n = Inf),
    ignore_attr = TRUE
  )
})

test_that("write_rprofmem() refuses a profile without allocations", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  out <- tempfile(fileext = ".out")
  expect_error(write_rprofmem(x, out), class = "profile_error_invalid")
  expect_false(file.exists(out))
})

test_that("read_rprofmem() refuses v1 and bad arguments", {
  path <- sample_path("rprofmem", "alloc.out.gz")
  expect_error(read_rprofmem(path, version = "1.0"), class = "profile_error_unsupported")
  expect_error(read_rprofmem(path, "x"), class = "profile_error_argument")
  expect_error(read_rprofmem(tempfile()), class = "profile_error_io")
})

test_that("go tool pprof reads write_pprof() of allocations as profile_summary() does", {
  skip_if_no_go()
  x <- read_rprofmem(sample_path("rprofmem", "alloc.out.gz"))
  path <- tempfile(fileext = ".pb.gz")
  write_pprof(x, path)
  expect_identical(go_sample_types(path)$type, c("alloc_objects", "alloc_space"))
  for (type in c("alloc_space", "alloc_objects")) {
    unit <- if (type == "alloc_space") "bytes" else "count"
    ours <- profile_summary(x, type = type, n = Inf)
    tool <- go_top(path, type, unit)
    tool <- tool[tool$flat != 0 | tool$cum != 0, ]
    expect_gt(nrow(tool), 10)
    expect_setequal(ours$name, tool$name)
    j <- match(tool$name, ours$name)
    expect_equal(ours$self[j], tool$flat, label = paste(type, "flat"))
    expect_equal(ours$total[j], tool$cum, label = paste(type, "cum"))
  }
  # the new pages are a label Go can leave out: what remains is the allocations' bytes
  no_pages <- go_top(path, "alloc_objects", "count", "-tagignore=what=new page")
  pages <- nrow(dm::dm_get_tables(x)$sample_labels)
  expect_equal(
    sum(no_pages$flat),
    nrow(dm::dm_get_tables(x)$samples) - pages
  )
})

test_that("the view opens at alloc_space and switches to alloc_objects, as wide as the summary", {
  skip_if_no_browser()
  x <- read_rprofmem(sample_path("rprofmem", "alloc.out.gz"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x), actions = list(list(type = "alloc_objects"))
  ))
  expect_clean_load(result)
  states <- result$states
  expect_identical(states$type, c("alloc_space", "alloc_objects"))
  expect_setequal(states$types[[1]], c("alloc_objects (count)", "alloc_space (bytes)"))
  for (i in 1:2) {
    summary <- profile_summary(x, type = states$type[[i]], n = Inf)
    frames <- view_frames(states[i, ])
    width <- frames$width[frames$depth == 0]
    drawn <- drawn_outermost_widths(frames)
    top <- utils::head(summary[order(-summary$total), ], 6)
    expect_true(all(top$name %in% names(drawn)))
    expected <- top$total / attr(summary, "grand_total") * width
    expect_lt(max(abs(drawn[top$name] - expected)), 1)
  }
  bytes <- attr(profile_summary(x, type = "alloc_space"), "grand_total")
  expect_match(states$heading[[1]], sprintf("total %s MiB", signif(bytes / 2^20, 4)), fixed = TRUE)
})
