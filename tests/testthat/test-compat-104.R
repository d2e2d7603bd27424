# v1 output compared with CRAN profile 1.0.4's, for every sample file.
#
# Where 1.0.4 is right, the v1 objects must be identical (ids, order, types,
# dotted columns) to what 1.0.4 gives in the C locale: 1.0.4's ids follow the
# collation of the locale (sort() and merge()), ours are always in byte order
# (ids are deterministic: dev/ARCHITECTURE.md, "Conventions"). Where it is
# wrong (the defects ?read_rprof lists under `version = "1.0"`), the test
# applies 1.0.4's defects to our output, derived from the file itself, and then
# expects 1.0.4's stacks exactly:
#
# - memory.out, all.out, append.out (3rd session): 1.0.4 drops the innermost
#   frame of every line with a memory prefix (`:small:large:nodes:dups:` is
#   glued to it) and drops prefix-only lines; we strip the prefix and keep the
#   frame.
# - line.out, all.out, append.out: 1.0.4 drops frames whose names contain
#   quotes (`x[["a"]]`, `x[["b c"]]`); we keep them.
# - append.out: 1.0.4 takes the 2nd and 3rd header lines for stacks (and
#   warns); we read three sessions without warnings.
# - Frames 1.0.4 drops leave their functions out of its tables, and shift the
#   ids of the others, so for these files functions are compared by content.

rprof_files <- c(
  "1.out", "gc.out", "incomplete.out", "line.out", "memory.out", "all.out", "append.out"
)
rprof_files_with_fixes <- c("line.out", "memory.out", "all.out", "append.out")

# Our frames with 1.0.4's defects applied (see the top of the file).
frames_as_104_reads_them <- function(ours, path) {
  stack_lines <- rprof_stack_lines(path)
  frames <- v1_frames(ours)
  expect_identical(length(frames), length(stack_lines))
  has_prefix <- grepl("^:[0-9]+:[0-9]+:[0-9]+:[0-9]+:", stack_lines)
  frames <- Map(function(f, prefix) {
    if (prefix) f <- f[-1]
    f[!grepl("\"", sub("\r.*", "", f), fixed = TRUE)]
  }, frames, has_prefix)
  frames[lengths(frames) > 0]
}

test_that("Rprof files read as version 1.0 are those of profile 1.0.4", {
  skip_if_no_profile104()
  for (file in setdiff(rprof_files, rprof_files_with_fixes)) {
    path <- sample_path("rprof", file)
    theirs <- suppressWarnings(profile104_read(path))
    read_ours <- function() read_rprof(path, version = "1.0")
    ours <- if (file == "incomplete.out") suppressWarnings(read_ours()) else read_ours()
    # everything, down to the `.rprof` component and the `.file_id` column
    expect_identical(unclass(ours), unclass(theirs), info = file)
  }
})

test_that("where 1.0.4 is wrong, only its documented defects separate us", {
  skip_if_no_profile104()
  for (file in rprof_files_with_fixes) {
    path <- sample_path("rprof", file)
    expect_warning(theirs <- profile104_read(path), class = "profile104_warning")
    ours <- expect_silent(read_rprof(path, version = "1.0"))
    expected <- frames_as_104_reads_them(ours, path)
    expect_identical(v1_frames(theirs), expected, info = file)
    expect_true(all(theirs$samples$value == 1L) && all(ours$samples$value == 1L), info = file)
    # functions 1.0.4 kept are ours, by content
    fn <- function(x) {
      paste(x$functions$name, x$functions$system_name, x$functions$filename, sep = "|")
    }
    expect_true(all(fn(theirs) %in% fn(ours)), info = file)
  }
})

test_that("pprof files read as version 1.0 are those of profile 1.0.4", {
  skip_if_no_profile104(profile104_needs("read_pprof"))
  for (file in c("proto/1.out.prof.pb.gz", "pprof/cpu.pb.gz")) {
    path <- sample_path(file)
    theirs <- profile104_read(path, fun = "read_pprof")
    ours <- read_pprof(path, version = "1.0")
    # 1.0.4's `.msg` component (an RProtoBuf message) is not carried over
    expect_identical(unclass(ours), unclass(theirs), info = file)
  }
})

test_that("pprof files without sample counts are refused for version 1.0, as by 1.0.4", {
  skip_if_no_profile104(profile104_needs("read_pprof"))
  for (file in c("heap.pb.gz", "goroutine.pb.gz", "mutex.pb.gz", "block.pb.gz")) {
    path <- sample_path("pprof", file)
    expect_error(profile104_read(path, fun = "read_pprof"), class = "profile104_error")
    expect_error(read_pprof(path, version = "1.0"), class = "profile_error_unsupported")
  }
})
