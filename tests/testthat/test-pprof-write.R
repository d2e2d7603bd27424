pprof_samples <- c(
  file.path("pprof", c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz", "mutex.pb.gz", "block.pb.gz")),
  file.path("proto", "1.out.prof.pb.gz")
)

test_that("read -> write -> read gives equal tables", {
  for (file in pprof_samples) {
    x <- read_pprof(sample_path(file), source_uri = "same")
    out <- withr::local_tempfile(fileext = ".pb.gz")
    expect_identical(write_pprof(x, out), x)
    y <- read_pprof(out, source_uri = "same")
    expect_identical(dm::dm_get_tables(y), dm::dm_get_tables(x), info = file)
  }
})

test_that("go tool pprof shows the same samples, labels and stacks in the rewritten file", {
  skip_if_no_go()
  for (file in pprof_samples) {
    out <- withr::local_tempfile(fileext = ".pb.gz")
    write_pprof(read_pprof(sample_path(file)), out)
    for (mode in c("raw", "traces")) {
      expect_identical(
        go_pprof(mode, out), go_pprof(mode, sample_path(file)),
        info = paste(file, mode)
      )
    }
  }
})

test_that("the file is gzip-compressed protobuf whatever its extension", {
  out <- withr::local_tempfile(fileext = ".txt")
  write_pprof(read_pprof(sample_path("pprof", "mutex.pb.gz")), out)
  expect_identical(readBin(out, "raw", 2), as.raw(c(0x1f, 0x8b)))
  # the decompressed data starts with field 1 (sample_type), length-delimited
  expect_identical(read_gz(out)[[1]], as.raw(0x0a))
})

test_that("a failed write leaves the target as it was and no temporary file", {
  dir <- withr::local_tempdir()
  out <- file.path(dir, "profile.pb.gz")
  writeLines("old content", out)
  bad <- read_pprof(sample_path("pprof", "mutex.pb.gz"))
  bad <- dm::dm_zoom_to(bad, locations)
  bad <- dm::dm_update_zoomed(dplyr::mutate(bad, address = "not an address"))
  expect_error(write_pprof(bad, out), class = "profile_error_invalid")
  expect_identical(readLines(out), "old content")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "profile.pb.gz")
  expect_error(
    write_pprof(
      read_pprof(sample_path("pprof", "mutex.pb.gz")), file.path(dir, "missing", "x.pb.gz")
    ),
    class = "profile_error_io"
  )
})

test_that("v1 objects are written row by row and read back as they were", {
  for (file in c("proto/1.out.prof.pb.gz", "pprof/cpu.pb.gz")) {
    v1 <- read_pprof(sample_path(file), version = "1.0")
    out <- withr::local_tempfile(fileext = ".pb.gz")
    write_pprof(v1, out)
    back <- read_pprof(out, version = "1.0")
    expect_identical(unclass(back), unclass(v1), info = file)
  }
  # cpu.pb.gz has samples with a count above 1: they stay one row each
  v1 <- read_pprof(sample_path("pprof", "cpu.pb.gz"), version = "1.0")
  expect_true(any(v1$samples$value > 1))
})

# An Rprof-like v2 profile built by hand: two sources with sampling intervals of
# 20 ms and 10 ms, R's special frame names, and memory values including a gauge.
rprof_like_v2 <- function() {
  names <- c("<GC>", "<Anonymous>", "main", "x[[\"a\"]]", "obj$f", "stats:::median.default")
  stacks <- list(c(1L, 3L), c(2L, 3L), c(1L, 3L), c(4L, 2L, 3L), c(5L, 6L, 3L))
  n <- length(stacks)
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1:2, source_type = "rprof", source_uri = NA_character_,
      source_timestamp = NA_real_, period_type = "cpu", period_unit = "nanoseconds",
      period = c(20e6, 10e6)
    ),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = c(1L, 1L, 1L, 2L, 2L)),
    sample_values = tibble::tibble(
      sample_id = rep(seq_len(n), each = 3),
      type = rep(c("samples", "node_heap", "alloc_size"), n),
      unit = rep(c("count", "bytes", "bytes"), n),
      value = as.vector(rbind(1, 1e6 * seq_len(n), 100 * seq_len(n)))
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), lengths(stacks)),
      depth = sequence(lengths(stacks)),
      location_id = unlist(stacks)
    ),
    locations = tibble::tibble(
      location_id = seq_along(names), function_id = seq_along(names), line = 0L
    ),
    functions = tibble::tibble(
      function_id = seq_along(names), name = names, system_name = names,
      filename = "", start_line = 0L
    )
  )
}

test_that("R frames are shown by name, and time is count times interval", {
  skip_if_no_go()
  out <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(rprof_like_v2(), out)
  top <- go_pprof("top", out, c("-nodecount=100", "-sample_index=samples"))
  expect_false(any(grepl("<unknown>", top, fixed = TRUE)))
  for (name in c("<GC>", "<Anonymous>", "main", "x[[\"a\"]]", "obj$f", "stats:::median.default")) {
    expect_true(any(endsWith(top, paste0(" ", name))), info = name)
  }
  expect_true(any(grepl("of 5 total", top)))
  # cpu: 3 samples at 20 ms, 2 at 10 ms
  cpu <- go_pprof("top", out, "-sample_index=cpu")
  expect_true(any(grepl("of 80ms total", cpu, fixed = TRUE)))
  traces <- go_pprof("traces", out)
  expect_false(any(grepl("<unknown>", traces, fixed = TRUE)))
  expect_true(any(grepl(" <GC>$", traces)))
  # and again after reading the file and writing it once more
  again <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(read_pprof(out), again)
  expect_identical(go_pprof("traces", again), traces)
})

test_that("gauges are not written; alloc_size is a sample type", {
  skip_if_no_go()
  out <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(rprof_like_v2(), out)
  raw <- go_pprof("raw", out)
  types <- trimws(raw[match("Samples:", raw) + 1L])
  expect_identical(
    strsplit(types, " +")[[1]], c("samples/count", "cpu/nanoseconds", "alloc_size/bytes")
  )
  top <- go_pprof("top", out, "-sample_index=alloc_size")
  expect_true(any(grepl("Type: alloc_size", top, fixed = TRUE)))
  expect_true(any(grepl("of 1500B total", top, fixed = TRUE)))
  expect_true(any(grepl("PeriodType: cpu nanoseconds", raw, fixed = TRUE)))
})

# Found by the composition suite (test-compose-pipelines.R): a profile of
# gauges only was written as a file with samples and no sample type, which
# read_pprof() and Go's parser refuse.
test_that("a profile with samples and gauges only is refused, and no file is left", {
  x <- read_rprof(system.file("samples", "rprof", "memory.out", package = "profile"))
  gauges <- profile_select_types(x, c("small_vector_heap", "large_vector_heap", "node_heap"))
  out <- withr::local_tempfile(fileext = ".pb.gz")
  expect_profile_error(write_pprof(gauges, out), "unsupported", "no sample type")
  expect_false(file.exists(out))
  # with one summable type left, it is written and read back
  write_pprof(profile_select_types(x, c("node_heap", "duplications")), out)
  back <- read_pprof(out)
  expect_identical(unique(back$sample_values$type), "duplications")
  expect_equal(
    sum(back$sample_values$value),
    sum(x$sample_values$value[x$sample_values$type == "duplications"])
  )
})

test_that("raw samples with the same stack are summed; reading back keeps names", {
  out <- withr::local_tempfile(fileext = ".pb.gz")
  x <- rprof_like_v2()
  write_pprof(x, out)
  t <- dm::dm_get_tables(read_pprof(out))
  # samples 1 and 3 have the same stack
  expect_identical(nrow(t$samples), 4L)
  counts <- t$sample_values[t$sample_values$type == "samples", ]
  expect_identical(counts$value, c(2, 1, 1, 1))
  expect_identical(t$functions$system_name, t$functions$name)
  expect_identical(t$functions$name, dm::dm_get_tables(x)$functions$name)
  expect_identical(unique(t$mappings$filename), "[R]")
  expect_true(all(!is.na(t$locations$address)))
})

test_that("a profile converted by 1.0.4 from Rprof shows <Anonymous>, not <unknown>", {
  skip_if_no_go()
  # 1.0.4's own file: pprof's demangler turns its "<Anonymous>" into "<unknown>"
  original <- go_pprof("top", sample_path("proto", "1.out.prof.pb.gz"), "-nodecount=200")
  expect_true(any(grepl("<unknown>", original, fixed = TRUE)))

  out <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(read_pprof(sample_path("proto", "1.out.prof.pb.gz"), version = "1.0"), out)
  top <- go_pprof("top", out, "-nodecount=200")
  expect_false(any(grepl("<unknown>", top, fixed = TRUE)))
  expect_true(any(endsWith(top, " <Anonymous>")))
  # total: one sample per stack line of the Rprof file it came from
  n_lines <- length(readLines(sample_path("rprof", "1.out"))) - 1L
  expect_true(any(grepl(paste0("of ", n_lines, " total"), top, fixed = TRUE)))
})

test_that("Rprof files: pprof shows R names and time = samples x interval", {
  skip_if_no_go()
  skip_if_not(exists("read_rprof", asNamespace("profile")), "waiting for the Rprof reader")
  for (file in c("1.out", "gc.out", "memory.out")) {
    path <- sample_path("rprof", file)
    lines <- readLines(path)
    interval_us <- as.numeric(sub(".*sample\\.interval=([0-9]+).*", "\\1", lines[[1]]))
    n_samples <- sum(!grepl("^#File |sample\\.interval=", lines))
    out <- withr::local_tempfile(fileext = ".pb.gz")
    write_pprof(read_rprof(path), out)
    top <- go_pprof("top", out, c("-nodecount=500", "-sample_index=samples"))
    expect_false(any(grepl("<unknown>", top, fixed = TRUE)), info = file)
    expect_true(any(grepl(paste0("of ", n_samples, " total"), top, fixed = TRUE)), info = file)
    # (-raw leaves out samples without frames: ticks at top level in memory.out)
    cpu <- go_pprof("top", out, c("-sample_index=cpu", "-unit=ns"))
    total <- format(n_samples * interval_us * 1000, scientific = FALSE)
    expect_true(any(grepl(paste0("of ", total, "ns total"), cpu, fixed = TRUE)), info = file)
    samples <- parse_pprof_raw(go_pprof("raw", out))
    if (file == "gc.out") {
      expect_true(any(endsWith(top, " <GC>")))
    }
    if (file == "memory.out") {
      expect_true("alloc_size/bytes" %in% samples$types)
      expect_false(any(grepl("heap", samples$types)))
    }
  }
})
