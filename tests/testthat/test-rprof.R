test_that("every sample file reads into a valid v2 profile, one sample per stack line", {
  for (file in rprof_sample_files) {
    path <- sample_path("rprof", file)
    res <- with_warnings(read_rprof(path))
    x <- res$value
    expect_silent(validate_profile(x))
    expect_identical(res$warnings, if (file == "incomplete.out") {
      "Incomplete sampling information, increase bufsize in `Rprof()` or `start_profiler()` call"
    } else {
      character()
    }, info = file)
    segments <- rprof_segments(path)
    t <- dm::dm_get_tables(x)
    expect_identical(nrow(t$sources), length(segments), info = file)
    expect_identical(
      t$sources$rprof_header, unname(vapply(segments, `[[`, "", "header")),
      info = file
    )
    expect_identical(
      t$samples$source_id,
      rep(seq_along(segments), lengths(lapply(segments, `[[`, "stack"))),
      info = file
    )
    # the stacks, frame by frame, as an independent reading of the lines gives them
    expect_identical(v2_stacks(x), rprof_expected_stacks(path), info = file)
    expect_identical(v2_values(x, "samples"), rep(1, nrow(t$samples)), info = file)
  }
})

test_that("sources carry the header, the interval, the uri", {
  path <- sample_path("rprof", "append.out")
  t <- dm::dm_get_tables(read_rprof(path))
  expect_identical(t$sources$source_type, rep("rprof", 3))
  expect_identical(t$sources$source_uri, rep(path, 3))
  expect_identical(t$sources$source_timestamp, rep(NA_real_, 3))
  expect_identical(t$sources$period_type, rep("cpu", 3))
  expect_identical(t$sources$period_unit, rep("nanoseconds", 3))
  intervals <- as.numeric(
    sub(".*sample\\.interval=", "", grep("sample.interval=", readLines(path), value = TRUE))
  )
  expect_identical(t$sources$period, intervals * 1000)
  expect_identical(
    t$sources$rprof_header,
    c(
      "sample.interval=2000", "line profiling: sample.interval=5000",
      "memory profiling: GC profiling: sample.interval=10000"
    )
  )
  # sample types per source: memory types only for the memory segment
  st <- t$sample_types
  expect_identical(st$type[st$source_id == 1L], "samples")
  expect_identical(
    st$type[st$source_id == 3L],
    c(
      "samples", "small_vector_heap", "large_vector_heap", "node_heap", "duplications", "alloc_size"
    )
  )

  x <- read_rprof(path, source_uri = "run-42")
  expect_identical(dm::dm_get_tables(x)$sources$source_uri, rep("run-42", 3))
  x <- read_rprof(path, source_uri = NA)
  expect_identical(dm::dm_get_tables(x)$sources$source_uri, rep(NA_character_, 3))
})

test_that("appended sessions number their files anew", {
  path <- sample_path("rprof", "append.out")
  segments <- rprof_segments(path)
  expect_length(segments[[2]]$files, 3)
  t <- dm::dm_get_tables(read_rprof(path))
  # every file named in #File lines is a function's file; functions are (name, file)
  expect_setequal(setdiff(t$functions$filename, ""), unname(segments[[2]]$files))
  expect_false(anyDuplicated(t$functions[c("name", "filename")]) > 0)
})

test_that("quoted, namespaced and special frame names are kept verbatim", {
  t <- dm::dm_get_tables(read_rprof(sample_path("rprof", "line.out")))
  frame_names <- c(
    'x[["a"]]', 'x[["b c"]]', "slow sum", "utils::head", "stats:::median.default", "obj$f",
    "<Anonymous>", "my.fun"
  )
  for (name in frame_names) {
    expect_true(name %in% t$functions$name, info = name)
  }
  expect_identical(t$functions$name, t$functions$system_name)
  gc <- dm::dm_get_tables(read_rprof(sample_path("rprof", "gc.out")))
  expect_true("<GC>" %in% gc$functions$name)
})

test_that("line references give files and lines; start_line is the smallest line", {
  path <- sample_path("rprof", "line.out")
  t <- dm::dm_get_tables(read_rprof(path))
  frames <- do.call(rbind, lapply(rprof_segments(path), function(s) {
    do.call(rbind, lapply(s$stack, rprof_line_frames, files = s$files))
  }))
  expected <- aggregate(line ~ name + file, frames, min)
  got <- merge(expected, t$functions, by.x = c("name", "file"), by.y = c("name", "filename"))
  expect_identical(nrow(got), nrow(t$functions))
  expect_identical(got$start_line, got$line)
  # ids by first appearance
  first <- unique(paste(frames$name, frames$file))
  expect_identical(paste(t$functions$name, t$functions$filename), first)
})

test_that("memory profiling gives the five values, alloc_size against the previous tick", {
  for (file in c("memory.out", "all.out")) {
    path <- sample_path("rprof", file)
    x <- read_rprof(path)
    m <- rprof_memory_fields(path)
    expect_identical(v2_values(x, "small_vector_heap"), m[, 1] * 8, info = file)
    expect_identical(v2_values(x, "large_vector_heap"), m[, 2] * 8, info = file)
    expect_identical(v2_values(x, "node_heap"), m[, 3], info = file)
    expect_identical(v2_values(x, "duplications"), m[, 4], info = file)
    growth <- diff(m[, 1:3])
    growth[growth < 0] <- 0
    expect_identical(
      v2_values(x, "alloc_size"), c(0, 8 * growth[, 1] + 8 * growth[, 2] + growth[, 3]),
      info = file
    )
    units <- unique(dm::dm_get_tables(x)$sample_values[c("type", "unit")])
    expect_identical(
      units$unit[match(c("alloc_size", "duplications", "node_heap"), units$type)],
      c("bytes", "count", "bytes")
    )
  }
  # a tick with an empty call stack is a sample without locations
  x <- read_rprof(sample_path("rprof", "memory.out"))
  t <- dm::dm_get_tables(x)
  empty <- setdiff(t$samples$sample_id, t$sample_locations$sample_id)
  prefix_only <- grepl("^:[0-9:]+:$", rprof_segments(sample_path("rprof", "memory.out"))[[1]]$stack)
  expect_gt(sum(prefix_only), 0)
  expect_identical(empty, t$samples$sample_id[prefix_only])
})

test_that("CRLF line ends, a missing final newline and compressed files read the same", {
  path <- sample_path("rprof", "all.out")
  reference <- v2_table_list(read_rprof(path, source_uri = "x"))
  lines <- readLines(path)
  variants <- list(
    crlf = function(f) writeBin(charToRaw(paste0(paste(lines, collapse = "\r\n"), "\r\n")), f),
    no_final_newline = function(f) writeBin(charToRaw(paste(lines, collapse = "\n")), f),
    gzip = function(f) write_lines_to(lines, gzfile(f, "w")),
    bzip2 = function(f) write_lines_to(lines, bzfile(f, "w")),
    xz = function(f) write_lines_to(lines, xzfile(f, "w"))
  )
  for (v in names(variants)) {
    f <- withr::local_tempfile(fileext = ".out")
    variants[[v]](f)
    expect_identical(
      v2_table_list(expect_silent(read_rprof(f, source_uri = "x"))), reference,
      info = v
    )
  }
})

test_that("max_size limits plain and compressed files", {
  path <- sample_path("rprof", "memory.out")
  size <- file.size(path)
  expect_error(read_rprof(path, max_size = size - 1), class = "profile_error_limit")
  expect_silent(read_rprof(path, max_size = size))
  lines <- readLines(path)
  for (open in c(gzfile, bzfile, xzfile)) {
    f <- withr::local_tempfile(fileext = ".out")
    write_lines_to(lines, open(f, "w"))
    expect_error(read_rprof(f, max_size = size - 1), class = "profile_error_limit")
    expect_silent(read_rprof(f, max_size = size))
  }
})

test_that("bad input gives classed errors naming the file", {
  missing <- file.path(withr::local_tempdir(), "nope.out")
  err <- expect_error(read_rprof(missing), class = "profile_error_io")
  expect_match(conditionMessage(err), "nope.out", fixed = TRUE)
  expect_error(read_rprof(withr::local_tempdir()), class = "profile_error_io")

  empty <- withr::local_tempfile(fileext = ".out")
  file.create(empty)
  err <- expect_error(read_rprof(empty), class = "profile_error_format")
  expect_match(conditionMessage(err), basename(empty), fixed = TRUE)

  not_rprof <- withr::local_tempfile(fileext = ".out")
  writeLines(c('"f" "g" ', '"f" '), not_rprof)
  err <- expect_error(read_rprof(not_rprof), class = "profile_error_format")
  expect_match(conditionMessage(err), "line 1", fixed = TRUE)

  corrupt_bz2 <- withr::local_tempfile(fileext = ".out.bz2")
  writeBin(c(charToRaw("BZh9"), as.raw(0:200)), corrupt_bz2)
  expect_error(read_rprof(corrupt_bz2), class = "profile_error")

  corrupt_gz <- withr::local_tempfile(fileext = ".out.gz")
  writeBin(as.raw(c(0x1f, 0x8b, 0x08, 0x00, 1:30)), corrupt_gz)
  expect_error(read_rprof(corrupt_gz), class = "profile_error_format")
})

test_that("arguments are checked", {
  path <- sample_path("rprof", "1.out")
  expect_error(read_rprof(path, "1.0"), class = "profile_error_argument")
  expect_error(read_rprof(path, version = "3.0"), class = "profile_error_argument")
  expect_error(read_rprof(c(path, path)), class = "profile_error_argument")
  expect_error(read_rprof(path, source_uri = 1), class = "profile_error_argument")
  expect_error(read_rprof(path, max_size = -1), class = "profile_error_argument")
  expect_s3_class(read_rprof(path, version = 1), "profile_data")
})

test_that("damaged lines warn with profile 1.0.4's texts", {
  f <- withr::local_tempfile(fileext = ".out")
  writeLines(c("sample.interval=5000", '"f" "g" ', 'garbage "g" "h" ', '"f" "gg'), f)
  res <- with_warnings(read_rprof(f))
  expect_setequal(res$warnings, c(
    "Removing unexpected incomplete sampling information.",
    "Incomplete sampling information, increase bufsize in `Rprof()` or `start_profiler()` call"
  ))
  expect_identical(v2_stacks(res$value), list(c("f@:0", "g@:0"), "h@:0", "f@:0"))
})

test_that("each kind of warning has its class, and profile_warning", {
  # the class of each warning of a read, by its text
  classes_of_warnings <- function(lines) {
    f <- withr::local_tempfile(fileext = ".out")
    writeLines(lines, f)
    classes <- list()
    withCallingHandlers(read_rprof(f), warning = function(w) {
      classes[[conditionMessage(w)]] <<- class(w)
      invokeRestart("muffleWarning")
    })
    classes
  }
  incomplete <- paste(
    "Incomplete sampling information, increase bufsize in `Rprof()` or",
    "`start_profiler()` call"
  )
  unexpected <- "Removing unexpected incomplete sampling information."
  undefined_file <- paste(
    "Line profiling reference to a file number without a `#File` line;",
    "its file name is left empty."
  )
  expect_identical(
    classes_of_warnings(c("sample.interval=5000", '"f" "g" ', 'garbage "g" "h" ', '"f" "gg')),
    rlang::set_names(list(
      c("profile_warning_unexpected", "profile_warning", "warning", "condition"),
      c("profile_warning_incomplete", "profile_warning", "warning", "condition")
    ), c(unexpected, incomplete))
  )
  expect_identical(
    classes_of_warnings(c("line profiling: sample.interval=5000", '3#4 "f" ')),
    rlang::set_names(list(
      c("profile_warning_undefined_file", "profile_warning", "warning", "condition")
    ), undefined_file)
  )
  # a shipped file, matched by class as users can
  w <- expect_warning(
    read_rprof(sample_path("rprof", "incomplete.out")),
    class = "profile_warning_incomplete"
  )
  expect_identical(conditionMessage(w), incomplete)
  expect_null(conditionCall(w))
})

test_that("a memory prefix that is not four whole numbers is a format error naming the line", {
  bad <- c(
    ":12:abc:3:4:", "::2:3:4:", ":-1:2:3:4:", ":1.5:2:3:4:", ":99999999999999999999:2:3:4:",
    ":1:2:3:", ":1:2:3:4:5:"
  )
  for (prefix in bad) {
    f <- withr::local_tempfile(fileext = ".out")
    writeLines(
      c(
        "memory profiling: sample.interval=5000",
        ':1:2:3:4:"f" ',
        paste0(prefix, '"f" "g" '),
        ':1:2:3:4:"f" '
      ),
      f
    )
    err <- expect_error(read_rprof(f), class = "profile_error_format")
    expect_match(conditionMessage(err), "line 3", fixed = TRUE)
    expect_match(conditionMessage(err), basename(f), fixed = TRUE)
    expect_match(conditionMessage(err), "four whole numbers", fixed = TRUE)
    expect_error(read_rprof(f, version = "1.0"), class = "profile_error_format")
  }
  # The same in a file large enough to be read in chunks on several threads,
  # with the bad line far from the start.
  big <- withr::local_tempfile(fileext = ".out")
  good <- rep(':100:200:300:4:"f" "g" "main" ', 100000)
  writeLines(c("memory profiling: sample.interval=5000", good, ':12:abc:3:4:"f" ', good), big)
  expect_gt(file.size(big), 4 * 2^20)
  err <- expect_error(read_rprof(big), class = "profile_error_format")
  expect_match(conditionMessage(err), "line 100002", fixed = TRUE)
  # A file cut off inside the prefix of its last line: that line is passed over
  # with the warning for cut lines.
  cut <- withr::local_tempfile(fileext = ".out")
  writeLines(c("memory profiling: sample.interval=5000", ':1:2:3:4:"f" ', ":1:2"), cut)
  res <- with_warnings(read_rprof(cut))
  expect_identical(
    res$warnings,
    "Incomplete sampling information, increase bufsize in `Rprof()` or `start_profiler()` call"
  )
  expect_identical(nrow(dm::dm_get_tables(res$value)$samples), 1L)
})

test_that("profiles recorded here in every mode read as their lines say", {
  f <- withr::local_tempfile(fileext = ".out")
  record_rprof(f, memory.profiling = TRUE, gc.profiling = TRUE, line.profiling = TRUE)
  record_rprof(f, append = TRUE)
  record_rprof(f, append = TRUE, line.profiling = TRUE)
  x <- expect_silent(read_rprof(f))
  expect_silent(validate_profile(x))
  t <- dm::dm_get_tables(x)
  expect_identical(nrow(t$sources), 3L)
  expect_identical(v2_stacks(x), rprof_expected_stacks(f))
  expect_true(all(c('lst[["a"]]', 'lst[["b c"]]', "stats::median", "spin") %in% t$functions$name))
  expect_true(any(grepl("[.]R$", t$functions$filename)))
  n1 <- length(rprof_segments(f)[[1]]$stack)
  m <- rprof_memory_fields(f)[seq_len(n1), , drop = FALSE]
  expect_identical(v2_values(x, "node_heap"), m[, 3])
})
