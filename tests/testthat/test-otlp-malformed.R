# Bad OTLP input: files of older drafts of the signal, the damaged files of
# tests/testthat/fixtures/otlp-defects (each with the defect DEFECTS.tsv names),
# and thousands of mutated real files (tests/otlp/otlp-mutate.mjs): each is
# read or refused with a classed error, never an abort, within a capped
# address space.

test_that("every older draft and corrupted file of history/ is refused naming its draft", {
  dir <- file.path(otlp_oracle_shared_dir(), "pyroscope", "history")
  drafts <- c(
    "async-profiler-corrupted-function-idx.otlp-v1.7.0.pb.bin.gz" = "v1.7",
    "otel-ebpf-profile-corrupted.otlp-v1.8.0.pb.bin.gz" = "v1.8",
    "otel-ebpf-profile.otlp-v1.8.0.pb.bin.gz" = "v1.8",
    "otel-ebpf-profiler-pyrosymbolized.otlp-v1.5.0.pb.bin.gz" = "v1.5",
    "otel-ebpf-profiler-unsymbolized.otlp-v1.7.0.pb.bin.gz" = "v1.7"
  )
  expect_setequal(names(drafts), list.files(dir))
  for (file in names(drafts)) {
    e <- expect_error(read_otlp(file.path(dir, file)), class = "profile_error_unsupported")
    draft <- gsub(".", "\\.", drafts[[file]], fixed = TRUE)
    expect_match(conditionMessage(e), paste0("file of the (v[0-9.]+/)?", draft), label = file)
    expect_match(conditionMessage(e), "draft of the OpenTelemetry profiles signal")
  }
})

test_that("a draft's JSON names are refused too", {
  path <- tempfile(fileext = ".json")
  writeLines(c(
    '{"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"sampleType":{"typeStrindex":1,',
    '"aggregationTemporality":1},"sample":[{"locationsStartIndex":0,"value":["1"]}]}]}]}],',
    '"dictionary":{"stringTable":["","cpu"]}}'
  ), path)
  expect_error(read_otlp(path), class = "profile_error_unsupported", regexp = "v1.8")
})

test_that("each damaged file is refused with an error that names its defect", {
  defects <- otlp_defect_files()
  expected <- c(
    "dangling index" = "refers to entry %s of %s",
    "negative index" = "negative index %s into %s",
    "stack index past the table" = "refers to entry %s of %s",
    "string index past the table" = "refers to entry %s of %s",
    "values and timestamps of different lengths" = "values but .* timestamps",
    "sample with neither values nor timestamps" = "neither values nor timestamps",
    "wrong wire type" = "has wire type 2, which it cannot have",
    "truncated" = "truncated or corrupt data"
  )
  for (i in seq_len(nrow(defects))) {
    d <- defects[i, ]
    class <- switch(d$defect,
      "wrong wire type" = ,
      "truncated" = "profile_error_format",
      "profile_error_invalid"
    )
    e <- expect_error(read_otlp(d$path), class = class, label = d$file)
    pattern <- expected[[d$defect]]
    if (grepl("%s", pattern, fixed = TRUE)) pattern <- sprintf(pattern, d$index, d$table)
    expect_match(gsub("\\s+", " ", conditionMessage(e)), pattern, label = d$file)
  }
})

test_that("what is not OTLP is refused as such", {
  expect_error(
    read_otlp(system.file("samples", "pprof", "cpu.pb.gz", package = "profile")),
    class = "profile_error_format", regexp = "pprof file; read it with read_pprof"
  )
  expect_error(
    read_otlp(system.file("samples", "rprof", "1.out", package = "profile")),
    class = "profile_error_format", regexp = "not an OTLP profiles file"
  )
  empty <- tempfile()
  file.create(empty)
  expect_error(read_otlp(empty), class = "profile_error")
  zeros <- tempfile(fileext = ".gz")
  con <- gzfile(zeros, "wb")
  writeBin(raw(2^20), con)
  close(con)
  expect_error(read_otlp(zeros), class = "profile_error_format", regexp = "64 KiB")
})

test_that("JSON that is no OTLP ProfilesData is refused, naming what it holds", {
  json <- function(text) {
    path <- tempfile(fileext = ".json")
    writeLines(text, path)
    path
  }
  # Pyroscope's query results of the eBPF file: JSON of its own kind.
  for (file in c("otel-ebpf-profile-cpu.out.json", "otel-ebpf-profile-offcpu.out.json")) {
    e <- expect_error(
      read_otlp(otlp_oracle_shared_file("pyroscope", file)),
      class = "profile_error_format", label = file
    )
    expect_match(conditionMessage(e), "not an OTLP profiles file", fixed = TRUE, label = file)
    expect_match(conditionMessage(e), "`samples`", fixed = TRUE, label = file)
  }
  not_otlp <- c(
    "{}" = "it has no member", '{"foo":1}' = "it has `foo`",
    "[]" = "the JSON text is an array", '"text"' = "it is text, but not OTLP/JSON",
    '{"resourceProfiles": 3}' = "'\\[' expected"
  )
  for (text in names(not_otlp)) {
    e <- expect_error(read_otlp(json(text)), class = "profile_error_format", label = text)
    expect_match(gsub("\\s+", " ", conditionMessage(e)), not_otlp[[text]], label = text)
  }
  # A gzip-compressed one too.
  gz <- tempfile(fileext = ".json.gz")
  con <- gzfile(gz, "w")
  writeLines('{"foo":1}', con)
  close(con)
  expect_error(read_otlp(gz), class = "profile_error_format", regexp = "it has `foo`")
  # OTLP/JSON without samples is a profile without samples, as before: no
  # resources, an empty dictionary, the collector's empty file line.
  empty <- c(
    '{"resourceProfiles":[]}', '{"dictionary":{}}', '{"resourceProfiles":[],"dictionary":{}}'
  )
  for (text in empty) {
    x <- read_otlp(json(text))
    expect_silent(validate_profile(x))
    expect_identical(nrow(dm::dm_get_tables(x)$samples), 0L, label = text)
  }
  # A real OTLP/JSON file (Go's protojson) reads as before.
  x <- read_otlp(otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.json"))
  expect_gt(nrow(dm::dm_get_tables(x)$samples), 0L)
})

test_that("a field that claims more than the size limit is refused before it is read", {
  # ProfilesData.resource_profiles claiming 2^40 bytes, gzip-compressed.
  path <- tempfile(fileext = ".pb.gz")
  con <- gzfile(path, "wb")
  writeBin(as.raw(c(0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00)), con)
  close(con)
  expect_error(
    read_otlp(path),
    class = "profile_error_limit", regexp = "claims 1099511627776 bytes"
  )
})

# Reads each of `paths` with read_otlp() in one child R process capped at
# `address_space` KiB, with profile.max_memory at `max_memory` bytes; returns
# a data frame of path, class ("ok" or the error's classes) and message. A
# child that ends early (an abort) fails the test, naming the case it read.
read_otlp_cases_in_child <- function(paths, address_space = 4e6, max_memory = 2^30) {
  list_file <- tempfile()
  progress <- tempfile()
  report <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(c(list_file, progress, report, script)), add = TRUE)
  writeLines(paths, list_file)
  writeLines(c(
    "suppressPackageStartupMessages(library(profile))",
    sprintf("options(profile.max_memory = %.0f)", max_memory),
    sprintf("paths <- readLines(%s)", deparse(list_file)),
    sprintf("log <- file(%s, 'w')", deparse(progress)),
    "out <- vector('list', length(paths))",
    "for (i in seq_along(paths)) {",
    "  writeLines(paths[[i]], log); flush(log)",
    "  res <- tryCatch(",
    "    { x <- read_otlp(paths[[i]]); validate_profile(x); 'ok' },",
    "    error = identity",
    "  )",
    "  out[[i]] <- if (inherits(res, 'error')) {",
    "    c(paste(class(res), collapse = ' '), conditionMessage(res))",
    "  } else {",
    "    c('ok', '')",
    "  }",
    "}",
    "close(log)",
    sprintf("saveRDS(out, %s)", deparse(report))
  ), script)
  command <- sprintf(
    "ulimit -v %d && exec %s --vanilla %s 2>&1", as.integer(address_space),
    shQuote(file.path(R.home("bin"), "Rscript")), shQuote(script)
  )
  env <- c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)), "R_TESTS=")
  output <- suppressWarnings(system2("bash", c("-c", shQuote(command)), stdout = TRUE, env = env))
  if (!file.exists(report)) {
    last <- if (file.exists(progress)) utils::tail(readLines(progress), 1) else "(none)"
    message <- c("read_otlp() ended the R process, reading", last, output)
    testthat::fail(paste(message, collapse = "\n"))
    return(NULL)
  }
  res <- readRDS(report)
  data.frame(
    path = paths,
    class = vapply(res, `[[`, "", 1L),
    message = vapply(res, `[[`, "", 2L)
  )
}

test_that("mutated real files are read or refused with a classed error, never an abort", {
  skip_if_no_otlp_oracle()
  skip_unless_capped_processes()
  seeds <- c(
    otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin"),
    otlp_oracle_shared_file("async-profiler-generated", "burn.otlp.pb"),
    otlp_oracle_shared_file(
      "otel-collector-contrib", "golden-profiles-roundtrip-expected.derived.pb"
    ),
    otlp_sample_file("otep-0239.pb")
  )
  total <- otlp_mutation_count()
  batch <- 1000L
  seed <- as.integer(Sys.getenv("PROFILE_OTLP_MUTATION_SEED", "1"))
  results <- list()
  for (from in seq(0L, total - 1L, by = batch)) {
    to <- min(from + batch, total)
    dir <- withr::local_tempdir()
    cases <- otlp_mutated_cases(seeds, seed = seed, from = from, to = to, dir = dir)
    read <- read_otlp_cases_in_child(cases$path)
    if (is.null(read)) {
      return()
    }
    read$defect <- cases$defect
    read$label <- cases$label
    results[[length(results) + 1L]] <- read
    unlink(dir, recursive = TRUE)
  }
  res <- do.call(rbind, results)
  expect_identical(nrow(res), total)
  classed <- res$class == "ok" | grepl("profile_error", res$class, fixed = TRUE)
  expect_true(all(classed), label = paste(utils::head(res$label[!classed]), collapse = "\n"))
  # No error the package did not foresee.
  internal <- grepl("profile_error_internal", res$class, fixed = TRUE)
  expect_false(any(internal), label = paste(utils::head(res$message[internal]), collapse = "\n"))
  # The defects the generator made on purpose are never read as if valid.
  labelled <- nzchar(res$defect)
  expect_gt(sum(labelled), total / 20)
  read_anyway <- labelled & res$class == "ok"
  expect_false(
    any(read_anyway),
    label = paste(utils::head(res$label[read_anyway]), collapse = "\n")
  )
  # Both outcomes occur: the mutations do not all break the files.
  expect_gt(sum(res$class == "ok"), 0)
  expect_gt(sum(res$class != "ok"), 0)
})
