# What code written for profile 1.0.x does with v1 objects read from Rprof
# files, and 1.0.x's own internal round trips.

rprof_samples <- c("1.out", "gc.out", "line.out", "memory.out", "all.out", "append.out")

test_that(paste(
  "read_rprof(version = '1.0') gives valid v1 objects, one sample of value 1 per stack",
  "line"
), {
  for (file in rprof_samples) {
    path <- sample_path("rprof", file)
    x <- expect_silent(read_rprof(path, version = "1.0"))
    expect_s3_class(x, "profile_data")
    expect_silent(validate_profile(x))
    expect_identical(x$meta$value, "1.0")
    expect_identical(x$samples$value, rep(1L, length(rprof_stack_lines(path))), info = file)
    expect_true(all(vapply(x$samples$locations, tibble::is_tibble, logical(1))), info = file)
  }
})

test_that("the innermost frames agree with summaryRprof()", {
  for (file in c("1.out", "gc.out")) {
    path <- sample_path("rprof", file)
    summary <- utils::summaryRprof(path)
    expected <- round(summary$by.self$self.time / summary$sample.interval)
    names(expected) <- gsub('"', "", rownames(summary$by.self), fixed = TRUE)

    x <- read_rprof(path, version = "1.0")
    innermost <- vapply(x$samples$locations, function(l) l$location_id[[1]], integer(1))
    fid <- x$locations$function_id[match(innermost, x$locations$location_id)]
    name <- x$functions$system_name[match(fid, x$functions$function_id)]
    counts <- tapply(x$samples$value, name, sum)
    expect_identical(as.numeric(counts[names(expected)]), unname(expected), info = file)
    expect_equal(sum(counts), sum(expected), info = file)
  }
})

test_that("a truncated last line gives 1.0.4's warning text", {
  expect_warning(
    x <- read_rprof(sample_path("rprof", "incomplete.out"), version = "1.0"),
    "Incomplete sampling information, increase bufsize in `Rprof()` or `start_profiler()` call",
    fixed = TRUE
  )
  expect_silent(validate_profile(x))
})

test_that("nrow(x$samples) grows after an Rprof(append = TRUE) session", {
  spin <- function(seconds) {
    start <- proc.time()[["elapsed"]]
    total <- 0
    while (proc.time()[["elapsed"]] - start < seconds) total <- total + sum(sqrt(seq_len(1e4)))
    total
  }
  path <- withr::local_tempfile(fileext = ".out")
  utils::Rprof(path, interval = 0.005)
  spin(0.3)
  utils::Rprof(NULL)
  first <- read_rprof(path, version = "1.0")
  expect_identical(nrow(first$samples), length(rprof_stack_lines(path)))

  utils::Rprof(path, interval = 0.005, append = TRUE)
  spin(0.3)
  utils::Rprof(NULL)
  expect_identical(sum(grepl("sample\\.interval=", readLines(path))), 2L)
  both <- expect_silent(read_rprof(path, version = "1.0"))
  expect_silent(validate_profile(both))
  expect_gt(nrow(both$samples), nrow(first$samples))
  expect_identical(nrow(both$samples), length(rprof_stack_lines(path)))
  # the first session's samples come first, unchanged
  frames <- v1_frames(both)
  expect_identical(frames[seq_len(nrow(first$samples))], v1_frames(first))
})

test_that("v1 objects combine as jointprof combines them", {
  # the same run, as Rprof and (converted by profile 1.0.4) as pprof
  rprof <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  pprof <- read_pprof(sample_path("proto", "1.out.prof.pb.gz"), version = "1.0")
  expect_identical(sum(pprof$samples$value), sum(rprof$samples$value))

  # shift the pprof ids past the Rprof ones
  d_loc <- max(rprof$locations$location_id)
  d_fun <- max(rprof$functions$function_id)
  pprof$samples$locations <- lapply(pprof$samples$locations, function(l) {
    l$location_id <- l$location_id + d_loc
    l
  })
  pprof$locations$location_id <- pprof$locations$location_id + d_loc
  pprof$locations$function_id <- pprof$locations$function_id + d_fun
  pprof$functions$function_id <- pprof$functions$function_id + d_fun
  expect_silent(validate_profile(pprof))

  no_dots <- function(df) df[!grepl("^[.]", names(df))]
  combined <- rprof
  combined$samples$.pprof_locations <- pprof$samples$locations
  combined$locations <- tibble::as_tibble(rbind(no_dots(rprof$locations), no_dots(pprof$locations)))
  combined$functions <- tibble::as_tibble(rbind(no_dots(rprof$functions), no_dots(pprof$functions)))
  expect_silent(validate_profile(combined))
  expect_identical(nrow(combined$functions), nrow(rprof$functions) + nrow(pprof$functions))
  expect_identical(
    names(combined$functions),
    c("function_id", "name", "system_name", "filename", "start_line")
  )
})

test_that("rprof_to_ds(ds_to_rprof()) is a fixed point after one normalisation", {
  for (file in c("1.out", "line.out")) {
    ds <- read_rprof(sample_path("rprof", file), version = "1.0")
    rprof <- ds_to_rprof(ds)
    expect_named(rprof, c("header", "files", "traces"))
    expect_match(rprof$header, "sample.interval=", fixed = TRUE)
    expect_true(all(grepl("^#File ", rprof$files)))
    expect_identical(length(rprof$traces), nrow(ds$samples))

    ds1 <- rprof_to_ds(rprof)
    expect_identical(ds1$.rprof, rprof)
    ds2 <- rprof_to_ds(ds_to_rprof(ds1))
    expect_silent(validate_profile(ds2))
    expect_identical(strip_dots(ds1), strip_dots(ds2), info = file)
    # the stacks themselves survive the first pass
    expect_identical(v1_frames(ds1), v1_frames(ds), info = file)

    # and through a file, as 1.0.x's writer test did
    path <- withr::local_tempfile(fileext = ".out")
    write_rprof(ds1, path)
    expect_identical(strip_dots(read_rprof(path, version = "1.0")), strip_dots(ds1), info = file)
  }
})

test_that("msg_to_ds(ds_to_msg()) is a fixed point after one normalisation", {
  ds <- read_pprof(sample_path("proto", "1.out.prof.pb.gz"), version = "1.0")
  msg <- ds_to_msg(ds)
  expect_type(msg, "raw")
  ds1 <- msg_to_ds(msg)
  ds2 <- msg_to_ds(ds_to_msg(ds1))
  expect_silent(validate_profile(ds2))
  expect_identical(strip_dots(ds1), strip_dots(ds2))

  # and through a file, as 1.0.x's writer test did: no normalisation needed
  path <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(ds, path)
  expect_identical(strip_dots(read_pprof(path, version = "1.0")), strip_dots(ds))
})

test_that("msg_to_ds() refuses what is not a pprof file", {
  expect_error(msg_to_ds("not bytes"), class = "profile_error_argument")
})
