# Hostile and broken files given to both readers: each gives a profile_error of
# the documented class, with a message that names the file and, where there is
# one, the line or byte offset.

readers <- list(rprof = read_rprof, pprof = read_pprof)

test_that("a missing path, a directory, an empty file", {
  dir <- local_dir()
  empty <- hostile_file(dir, "empty.out", raw())
  for (read in readers) {
    expect_profile_error(read(file.path(dir, "missing.out")), "io", "missing.out", "does not exist")
    expect_profile_error(read(dir), "io", basename(dir), "directory")
    expect_profile_error(read(empty), "format", "empty.out", "empty")
  }
})

test_that("arguments that are not a path or a size", {
  for (read in readers) {
    for (bad in list(NA_character_, "", c("a", "b"), 1, NULL, list("a"))) {
      expect_profile_error(read(bad), "argument", "path")
    }
    expect_profile_error(read("x", max_size = -1), "argument", "max_size")
    expect_profile_error(read("x", max_size = "big"), "argument", "max_size")
    expect_profile_error(read("x", "1.0"), "argument", "unused argument")
  }
})

test_that("an unreadable file", {
  dir <- local_dir()
  path <- hostile_file(dir, "locked.out", "sample.interval=20000\n")
  Sys.chmod(path, "000")
  withr::defer(Sys.chmod(path, "644"))
  skip_if(file.access(path, 4L) == 0L, "running as root: permissions do not stop reading")
  for (read in readers) {
    expect_profile_error(read(path), "io", "locked.out", "permission denied")
  }
})

test_that("a file the system refuses to read while it claims to be readable", {
  # Reading /proc/self/mem at offset 0 fails with an input/output error.
  skip_if_not(file.exists("/proc/self/mem") && file.access("/proc/self/mem", 4L) == 0L)
  for (read in readers) {
    expect_profile_error(read("/proc/self/mem"), "io", "/proc/self/mem")
  }
})

test_that("random bytes", {
  dir <- local_dir()
  for (seed in 1:5) {
    path <- hostile_file(dir, paste0("random", seed, ".bin"), random_bytes(4096, seed))
    expect_profile_error(read_rprof(path), "format", basename(path), "line 1", "not an Rprof file")
    err <- expect_error(read_pprof(path), class = "profile_error")
    # random bytes may also be a "valid" protobuf that refers to nothing
    expect_true(err$kind %in% c("format", "limit"), info = conditionMessage(err))
    expect_match(conditionMessage(err), basename(path), fixed = TRUE)
  }
})

test_that("truncated gzip, gzip of garbage, the gzip magic alone", {
  dir <- local_dir()
  # Each reader reads on to the cut in data of its format; the other one's
  # data it refuses from their first bytes.
  rprof_gz <- gzip_file(
    dir, "memory.out.gz", readBin(sample_path("rprof", "memory.out"), "raw", 1e6)
  )
  samples <- c(
    sample_path("pprof", "cpu.pb.gz"), sample_path("proto", "1.out.prof.pb.gz"), rprof_gz
  )
  for (sample in samples) {
    gz <- readBin(sample, "raw", file.size(sample))
    cut <- hostile_file(dir, "cut.gz", gz[seq_len(length(gz) %/% 2)])
    read <- if (identical(sample, rprof_gz)) read_rprof else read_pprof
    expect_profile_error(read(cut), "format", "cut.gz", "corrupt gzip data")
    other <- if (identical(sample, rprof_gz)) read_pprof else read_rprof
    expect_profile_error(other(cut), "format", "cut.gz", "not a")
  }
  garbage <- gzip_file(dir, "garbage.gz", random_bytes(10000, 42))
  expect_profile_error(read_rprof(garbage), "format", "garbage.gz", "not an Rprof file")
  err <- expect_error(read_pprof(garbage), class = "profile_error")
  expect_match(conditionMessage(err), "garbage.gz", fixed = TRUE)
  magic <- hostile_file(dir, "magic.gz", as.raw(c(0x1f, 0x8b)))
  for (read in readers) {
    expect_profile_error(read(magic), "format", "magic.gz", "corrupt gzip data")
  }
  # a valid gzip stream followed by junk
  cpu <- sample_path("pprof", "cpu.pb.gz")
  tail_junk <- hostile_file(
    dir, "junk.gz", readBin(cpu, "raw", 1e6), charToRaw("junk after the stream")
  )
  expect_profile_error(read_pprof(tail_junk), "format", "junk.gz", "gzip")
  rprof_junk <- hostile_file(
    dir, "junk.out.gz", readBin(rprof_gz, "raw", 1e6), charToRaw("junk after the stream")
  )
  expect_profile_error(read_rprof(rprof_junk), "format", "junk.out.gz", "gzip")
})

test_that("bzip2 and xz files of garbage (decompressed by R)", {
  dir <- local_dir()
  bz <- hostile_file(dir, "garbage.bz2", "BZh9", random_bytes(500, 1))
  expect_profile_error(read_rprof(bz), "format", "garbage.bz2")
  xz <- hostile_file(
    dir, "garbage.xz", as.raw(c(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)), random_bytes(500, 2)
  )
  expect_profile_error(read_rprof(xz), "format", "garbage.xz")
  # a valid bzip2 stream of nothing
  empty_bz <- file.path(dir, "empty.bz2")
  con <- bzfile(empty_bz, "wb")
  close(con)
  expect_profile_error(read_rprof(empty_bz), "format", "empty.bz2", "empty")
})

test_that("a decompression bomb is refused quickly, with memory bounded by the file size", {
  skip_on_cran()
  dir <- local_dir()
  # 4.06 GiB of zeros in about 4 MB: neither format, as their first bytes show
  bomb <- gzip_bomb(dir, 4160)
  expect_lt(file.size(bomb), 8e6)
  has_peak <- peak_memory_reset()
  before <- peak_memory()
  time <- system.time({
    expect_profile_error(read_rprof(bomb), "format", "bomb.gz", "not an Rprof file")
    expect_profile_error(read_pprof(bomb), "format", "bomb.gz", "not a pprof protobuf file")
  })
  # CPU time of this process (the readers run in it): what a loaded machine
  # does not stretch, unlike the elapsed time
  expect_lt(cpu_seconds(time), 5)
  # 2.06 GiB that may be the format and cost nothing to count (a header then
  # blanks; a message then unknown fields): over `max_size`.
  blanks <- bomb_file("blanks.out.gz", "sample.interval=20000\n", " ", total = 2^31 + 2^26)
  unknown <- bomb_file("unknown.pb.gz", pprof_head(), raw(1), total = 2^31 + 2^26)
  for (case in list(list(read_rprof, blanks), list(read_pprof, unknown))) {
    time <- system.time(expect_profile_error(
      case[[1]](case[[2]], max_size = 2^31), "limit",
      basename(case[[2]]), "decompression bomb", "max_size"
    ))
    expect_lt(cpu_seconds(time), 60)
  }
  if (has_peak && !is.null(before)) {
    # Kept before counting starts: 64 times the file size, not 2 GiB.
    expect_lt(peak_memory() - before, 1e9)
  }
  # A small limit refuses a smaller bomb at once.
  small_rprof <- gzip_file(
    dir, "small.gz", c(charToRaw("sample.interval=20000\n"), rep(charToRaw(" "), 2e6))
  )
  expect_profile_error(
    read_rprof(small_rprof, max_size = 1e6), "limit", "small.gz", "1000000 bytes"
  )
  small <- gzip_file(dir, "small.pb.gz", c(pprof_head(), raw(2e6)))
  expect_profile_error(read_pprof(small, max_size = 1e6), "limit", "small.pb.gz", "1000000 bytes")
  withr::with_options(list(profile.max_size = 1e6), {
    expect_profile_error(read_pprof(small), "limit", "small.pb.gz")
  })
})

test_that("bzip2 bombs are refused too", {
  skip_on_cran()
  dir <- local_dir()
  path <- file.path(dir, "bomb.bz2")
  con <- bzfile(path, "wb")
  writeBin(c(charToRaw("sample.interval=20000\n"), rep(charToRaw(" "), 2^24)), con)
  close(con)
  expect_lt(file.size(path), 1e5)
  expect_profile_error(read_rprof(path, max_size = 2^23), "limit", "bomb.bz2", "max_size")
})

test_that("a file over the size limit is refused before it is read", {
  dir <- local_dir()
  path <- hostile_file(dir, "big.out", "sample.interval=20000\n", strrep("\"f\" \n", 1000))
  for (read in readers) {
    expect_profile_error(read(path, max_size = 100), "limit", "big.out", "max_size")
  }
})

test_that("legacy profiles that are not protobuf", {
  dir <- local_dir()
  words <- c(0, 3, 0, 10000, 0, 1, 1, 4195792)
  gperf <- hostile_file(dir, "cpu.prof", unlist(lapply(words, function(w) {
    writeBin(as.integer(c(w, 0)), raw(), endian = "little")
  })))
  expect_profile_error(read_pprof(gperf), "format", "cpu.prof", "legacy gperftools CPU profile")
  text <- hostile_file(
    dir, "heap.txt", "heap profile:    1:   262144 [     1:   262144] @ heap_v2/524288\n"
  )
  expect_profile_error(read_pprof(text), "format", "heap.txt", "legacy text profile")
  go_text <- gzip_file(
    dir, "goroutine.gz", charToRaw("goroutine profile: total 6\n1 @ 0x43a1f6 0x4066bd\n")
  )
  expect_profile_error(read_pprof(go_text), "format", "goroutine.gz", "legacy text profile")
  # An Rprof file is not pprof, and a pprof file is not Rprof.
  expect_profile_error(read_pprof(sample_path("rprof", "1.out")), "format", "1.out", "text")
  expect_profile_error(
    read_rprof(sample_path("pprof", "cpu.pb.gz")), "format", "cpu.pb.gz", "line 1"
  )
})

test_that("Rprof with binary garbage or NUL bytes: the line and byte offset", {
  dir <- local_dir()
  header <- "sample.interval=20000\n"
  garbage <- random_bytes(5000, 7)
  garbage[[100]] <- as.raw(0) # binary data: NUL bytes are certain, not just likely
  stack <- "\"f\" \"main\" \n"
  path <- hostile_file(dir, "garbage.out", header, stack, garbage)
  first_nul <- match(as.raw(0), garbage)
  line <- 3 + sum(garbage[seq_len(first_nul - 1)] == as.raw(0x0a))
  offset <- nchar(header) + nchar(stack) + first_nul - 1
  expect_profile_error(
    read_rprof(path), "format", "garbage.out", "NUL byte",
    paste0("line ", line, ", byte offset ", offset)
  )
  expect_profile_error(read_rprof(path, version = "1.0"), "format", "garbage.out", "NUL byte")

  nul <- hostile_file(dir, "nul.out", header, "\"a", as.raw(0), "b\" \"main\" \n")
  expect_profile_error(read_rprof(nul), "format", "nul.out", "line 2, byte offset 24")
})

test_that("a 50 MB single line: no header, or a stack over the depth limit", {
  skip_on_cran()
  dir <- local_dir()
  line <- file.path(dir, "line.out")
  con <- file(line, "wb")
  chunk <- charToRaw(strrep("a", 2^20))
  for (i in 1:50) writeBin(chunk, con)
  close(con)
  expect_profile_error(read_rprof(line), "format", "line.out", "line 1", "not an Rprof file")
  expect_profile_error(read_pprof(line), "format", "line.out", "text")
  unlink(line)

  deep <- file.path(dir, "deep.out")
  con <- file(deep, "wb")
  writeBin(charToRaw("sample.interval=20000\n"), con)
  frames <- charToRaw(strrep("\"f\" ", 2^18))
  for (i in 1:50) writeBin(frames, con)
  writeBin(charToRaw("\n"), con)
  close(con)
  expect_gt(file.size(deep), 50e6)
  has_peak <- peak_memory_reset()
  before <- peak_memory()
  time <- system.time(
    expect_profile_error(
      read_rprof(deep), "limit", "deep.out", "line 2", "more than 1000000 frames"
    )
  )
  expect_lt(cpu_seconds(time), 30)
  if (has_peak && !is.null(before)) {
    expect_lt(peak_memory() - before, 500e6)
  }
  unlink(deep)
})

test_that("names that are not UTF-8 are read by the documented rule: invalid bytes as <xx>", {
  dir <- local_dir()
  latin1 <- hostile_file(
    dir, "latin1.out", "line profiling: sample.interval=20000\n#File 1: caf",
    as.raw(0xe9), ".R\n1#2 \"caf", as.raw(0xe9), "\" \"ma\xffin\" \n"
  )
  x <- read_rprof(latin1)
  fun <- dm::dm_get_tables(x)$functions
  expect_identical(fun$name, c("caf<e9>", "ma<ff>in"))
  expect_identical(fun$filename[[1]], "caf<e9>.R")
  expect_true(all(validUTF8(c(fun$name, fun$filename))))
  v1 <- read_rprof(latin1, version = "1.0")
  expect_true(all(validUTF8(v1$functions$name)))

  # pprof: a string table entry with an invalid byte and a NUL
  strings <- c("", "samples", "count", "f\xff", "g\001\002", "file.go", "worker", "w")
  strings[[4]] <- rawToChar(c(charToRaw("f"), as.raw(0xff)))
  path <- write_raw(pprof_message(strings = strings))
  fun <- dm::dm_get_tables(read_pprof(path))$functions
  expect_identical(fun$name[[1]], "f<ff>")
  expect_true(all(validUTF8(fun$name)))
  # and a name with a NUL byte, which an R string cannot hold
  msg <- c(pprof_message(function_name = 8), pb_len(6, as.raw(c(0x61, 0x00, 0x62))))
  fun <- dm::dm_get_tables(read_pprof(write_raw(msg)))$functions
  expect_identical(fun$name[[1]], "a<00>b")
})
