# read_rprof(version = "1.0") against CRAN profile 1.0.4, run in a child process
# (skipped when 1.0.4 is not installed), and the cases 1.0.4 got wrong.

test_that("v1 output is 1.0.4's on every file 1.0.4 reads correctly", {
  skip_if_no_profile104()
  lib <- profile104_lib()
  paths <- c(
    sample_path("rprof", "1.out"), sample_path("rprof", "gc.out"),
    sample_path("rprof", "incomplete.out"),
    # files shipped with 1.0.4: line profiling; lines cut at every position,
    # one of them right after a line reference and its space
    file.path(lib, "profile", "samples", "rprof", "1.out"),
    file.path(lib, "profile", "samples", "rprof", "incomplete.out"),
    # lines R cut at 10 000 bytes, some right after a line reference, and
    # complete lines that end in the reference of the top-level code
    sample_path("rprof", "cut-lines.out.gz")
  )
  ref <- rprof104_read(paths)
  for (i in seq_along(paths)) {
    ours <- with_warnings(read_rprof(paths[[i]], version = "1.0"))
    expect_identical(ours$warnings, ref[[i]]$warnings, info = paths[[i]])
    # every table, down to the `.rprof` component and the `.file_id` column
    expect_identical(unclass(ours$value), unclass(ref[[i]]$value), info = paths[[i]])
    # the frames of each sample
    expect_identical(
      lengths(v1_frames(ours$value)), lengths(v1_frames(ref[[i]]$value)),
      info = paths[[i]]
    )
  }
})

test_that(paste(
  "a reference at the end of a line: v1 drops it as 1.0.4 did, v2 keeps the top level",
  "of complete lines"
), {
  skip_if_no_profile104()
  path <- sample_path("rprof", "cut-lines.out.gz")
  lines <- rprof_stack_lines(path)
  ends_in_reference <- grepl("(^|\" )[0-9]+#[0-9]+ $", lines)
  cut_by_r <- nchar(lines, type = "bytes") >= 10000L
  # the file has each kind of line
  expect_gt(sum(ends_in_reference & cut_by_r), 0L)
  expect_gt(sum(ends_in_reference & !cut_by_r), 0L)
  expect_gt(sum(!ends_in_reference & cut_by_r), 0L)

  # v1: 1.0.4's frames, one fewer than the line's references and names where
  # the line ends in a reference
  ref <- rprof104_read(path)[[1]]
  expect_identical(ref$warnings, paste(
    "Incomplete sampling information, increase bufsize in `Rprof()` or",
    "`start_profiler()` call"
  ))
  v1 <- suppressWarnings(read_rprof(path, version = "1.0"))
  expect_identical(v1_frames(v1), v1_frames(ref$value))
  expect_false(any(grepl("top level", v1$functions$name)))

  # v2: the same frames, and for complete lines the top level as the
  # outermost frame; a line R cut gets the warning for cut lines, and no top
  # level (its last reference is the call site of a frame R left out)
  expect_warning(v2 <- read_rprof(path), "Incomplete sampling information", fixed = TRUE)
  t <- dm::dm_get_tables(v2)
  stacks <- split(t$sample_locations, t$sample_locations$sample_id)
  outermost <- vapply(stacks, function(s) s$location_id[which.max(s$depth)], 1L)
  top_level_functions <- t$functions$function_id[t$functions$name == "<top level>"]
  top_level_locations <- t$locations$location_id[t$locations$function_id %in% top_level_functions]
  top_level <- outermost %in% top_level_locations
  expect_identical(unname(top_level), ends_in_reference & !cut_by_r)
  expect_identical(
    unname(lengths(lapply(stacks, `[[`, "location_id"))) - top_level,
    lengths(v1_frames(v1))
  )
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
