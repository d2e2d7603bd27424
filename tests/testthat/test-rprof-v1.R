# read_rprof(version = "1.0") against CRAN profile 1.0.4, run in a child process
# (skipped when 1.0.4 is not installed), and the cases 1.0.4 got wrong.

test_that("v1 output is 1.0.4's on every file 1.0.4 reads correctly", {
  skip_if_no_profile104()
  lib <- profile104_lib()
  paths <- c(
    sample_path("rprof", "1.out"), sample_path("rprof", "gc.out"),
    sample_path("rprof", "incomplete.out"),
    # a file shipped with 1.0.4: line profiling, lines cut at every position
    # (its incomplete.out: see the next test)
    file.path(lib, "profile", "samples", "rprof", "1.out")
  )
  ref <- rprof104_read(paths)
  for (i in seq_along(paths)) {
    ours <- with_warnings(read_rprof(paths[[i]], version = "1.0"))
    expect_identical(ours$warnings, ref[[i]]$warnings, info = paths[[i]])
    expect_identical(ours$value, ref[[i]]$value, info = paths[[i]])
  }
})

test_that("a line that ends in a reference and its space has the top level (1.0.4 dropped it)", {
  skip_if_no_profile104()
  # 1.0.4's incomplete.out has the lines of one stack cut at every position;
  # one is cut right after a reference and its space, which is how R writes the
  # line of the top-level code ("The top level" in ?profile_v2), so it reads as
  # such. Cut anywhere else, lines read as 1.0.4 reads them.
  path <- file.path(profile104_lib(), "profile", "samples", "rprof", "incomplete.out")
  ref <- rprof104_read(path)[[1]]
  ours <- with_warnings(read_rprof(path, version = "1.0"))
  expect_identical(ours$warnings, ref$warnings)
  top_level <- grepl("[0-9]+#[0-9]+ $", rprof_stack_lines(path))
  expect_identical(sum(top_level), 1L)
  frames <- v1_frames(ours$value)
  is_top_level <- lapply(frames, startsWith, "<top level>\r")
  expect_identical(vapply(is_top_level, sum, integer(1)), as.integer(top_level))
  # outermost
  expect_true(all(vapply(is_top_level[top_level], function(x) x[[length(x)]], logical(1))))
  expect_identical(Map(`[`, frames, lapply(is_top_level, `!`)), v1_frames(ref$value))

  # Without that reference, the file reads as 1.0.4 reads it.
  lines <- readLines(path)
  cut_after_reference <- grepl("[0-9]+#[0-9]+ $", lines) & !startsWith(lines, "#File")
  lines[cut_after_reference] <- sub("[0-9]+#[0-9]+ $", "", lines[cut_after_reference])
  without <- withr::local_tempfile(fileext = ".out")
  writeLines(lines, without)
  ours <- suppressWarnings(read_rprof(without, version = "1.0"))
  for (table in c("functions", "locations", "samples")) {
    expect_identical(ours[[table]], ref$value[[table]], info = table)
  }
})

test_that("memory prefixes are stripped and the first frame kept (1.0.4 lost it)", {
  path <- sample_path("rprof", "memory.out")
  lines <- readLines(path)
  stripped <- withr::local_tempfile(fileext = ".out")
  writeLines(
    c("sample.interval=5000", sub("^:[0-9]+:[0-9]+:[0-9]+:[0-9]+:", "", lines[-1])), stripped
  )
  ours <- expect_silent(read_rprof(path, version = "1.0"))
  # Lines with the prefix only are samples without locations.
  prefix_only <- grepl("^:[0-9:]+:$", lines[-1])
  expect_identical(
    unname(lengths(lapply(ours$samples$locations, `[[`, "location_id")) == 0L), prefix_only
  )
  expect_identical(ours$.rprof$traces, lines[-1])

  ref <- rprof104_read(stripped)[[1]]
  expect_identical(ref$warnings, character())
  expected <- ref$value
  keep <- !prefix_only
  expect_identical(ours$functions, expected$functions)
  expect_identical(ours$locations, expected$locations)
  expect_identical(ours$samples[keep, ], expected$samples)
})

test_that("appended sessions read without warnings (1.0.4 warned and mixed up files)", {
  skip_if_no_profile104()
  lib <- profile104_lib()
  ours <- expect_silent(read_rprof(sample_path("rprof", "append.out"), version = "1.0"))
  expect_silent(validate_profile(ours))

  # Two sessions 1.0.4 reads correctly one by one (a time profile, then a line
  # profile with #File lines), as Rprof(append = TRUE) would write them; and the
  # same without the second header, which 1.0.4 reads as one session.
  first <- readLines(sample_path("rprof", "1.out"))
  second <- readLines(file.path(lib, "profile", "samples", "rprof", "1.out"))
  appended <- withr::local_tempfile(fileext = ".out")
  writeLines(c(first, second), appended)
  single <- withr::local_tempfile(fileext = ".out")
  writeLines(c(first, second[-1]), single)
  ours <- expect_silent(read_rprof(appended, version = "1.0"))
  ref <- rprof104_read(single)[[1]]
  expect_identical(ref$warnings, character())
  expected <- ref$value
  expect_identical(ours$functions, expected$functions)
  expect_identical(ours$locations, expected$locations)
  expect_identical(unname(ours$samples$locations), unname(expected$samples$locations))
  expect_identical(ours$samples$value, expected$samples$value)
})

test_that("#File lines are matched by their number", {
  path <- sample_path("rprof", "line.out")
  lines <- readLines(path)
  is_file <- grepl("^#File ", lines)
  # All #File lines at the top, in reverse order: 1.0.4 took the n-th line for
  # file n; the numbers say which file is which.
  moved <- withr::local_tempfile(fileext = ".out")
  writeLines(c(lines[1], rev(lines[is_file]), lines[-1][!is_file[-1]]), moved)
  a <- read_rprof(path, version = "1.0")
  b <- read_rprof(moved, version = "1.0")
  expect_identical(b$functions, a$functions)
  expect_identical(b$locations, a$locations)
  expect_identical(unname(b$samples$locations), unname(a$samples$locations))
})

test_that("names with quotes are kept (1.0.4 dropped those frames)", {
  path <- sample_path("rprof", "line.out")
  ours <- expect_silent(read_rprof(path, version = "1.0"))
  expect_true(all(c('x[["a"]]', 'x[["b c"]]') %in% ours$functions$system_name))
  v2 <- read_rprof(path)
  frames <- function(x) {
    loc <- x$locations
    fun <- x$functions[match(loc$function_id, x$functions$function_id), ]
    desc <- paste0(fun$system_name, "@", fun$filename, ":", loc$line)
    lapply(unname(x$samples$locations), function(l) desc[match(l$location_id, loc$location_id)])
  }
  expect_identical(frames(ours), rprof_expected_stacks(path))
  expect_identical(unique(ours$functions$name[ours$functions$system_name == "my.fun"]), "my_fun")
})

test_that("ids are byte order, whatever the locale", {
  path <- sample_path("rprof", "1.out")
  a <- read_rprof(path, version = "1.0")
  withr::with_collate("C", b <- read_rprof(path, version = "1.0"))
  expect_identical(a, b)
  expect_identical(
    order(a$functions$system_name, a$functions$.file_id, method = "radix"),
    seq_len(nrow(a$functions))
  )
  # upper case sorts before lower case in byte order (not in most locales)
  expect_lt(match("FUN", a$functions$system_name), match("any", a$functions$system_name))
})

test_that("stacks are named by their line among the trace lines, as in 1.0.4", {
  path <- sample_path("rprof", "line.out")
  x <- read_rprof(path, version = "1.0")
  lines <- readLines(path)
  traces <- lines[-1][!grepl("^#File ", lines[-1])]
  expect_identical(x$.rprof$traces, traces)
  expect_identical(names(x$samples$locations), as.character(seq_along(traces)))
  expect_identical(x$samples$value, rep(1L, length(traces)))
})
