# Helpers for the hostile-input tests: files made at test time, and the checks
# that every failure is a profile_error of the documented class whose message
# names the file or argument.

# `expr` fails with a profile_error of class `profile_error_<kind>`; the message
# contains each of `...` (fixed strings). Returns the condition.
expect_profile_error <- function(expr, kind, ...) {
  err <- testthat::expect_error(expr, class = paste0("profile_error_", kind))
  testthat::expect_s3_class(err, "profile_error")
  testthat::expect_identical(err$kind, kind)
  msg <- conditionMessage(err)
  for (part in c(...)) {
    testthat::expect_true(
      grepl(part, msg, fixed = TRUE),
      info = paste0("message: ", msg, "\nexpected: ", part)
    )
  }
  invisible(err)
}

# A fresh directory under the session's temporary directory, removed when the
# calling test ends.
local_dir <- function(env = parent.frame()) {
  dir <- tempfile("hostile")
  dir.create(dir)
  withr::defer(unlink(dir, recursive = TRUE), envir = env)
  dir
}

# Writes `bytes` (a raw vector, or character pieces joined as they are) to a
# new file in `dir` and returns its path.
hostile_file <- function(dir, name, ...) {
  path <- file.path(dir, name)
  parts <- list(...)
  con <- file(path, "wb")
  on.exit(close(con))
  for (part in parts) {
    writeBin(if (is.character(part)) charToRaw(part) else part, con)
  }
  path
}

# `bytes` gzip-compressed into a file (memCompress() writes zlib, not gzip).
gzip_file <- function(dir, name, bytes) {
  path <- file.path(dir, name)
  con <- gzfile(path, "wb")
  writeBin(bytes, con)
  close(con)
  path
}

random_bytes <- function(n, seed) {
  withr::with_seed(seed, as.raw(sample.int(256L, n, replace = TRUE) - 1L))
}

# A gzip file that inflates to `mib` MiB of zeros: a member of 64 MiB of zeros
# (about 64 kB) repeated, which gunzip reads as one stream. Small on disk.
gzip_bomb <- function(dir, mib) {
  block <- tempfile(tmpdir = dir)
  con <- gzfile(block, "wb", compression = 9)
  writeBin(raw(2^26), con)
  close(con)
  member <- readBin(block, "raw", file.size(block))
  unlink(block)
  path <- file.path(dir, "bomb.gz")
  con <- file(path, "wb")
  for (i in seq_len(ceiling(mib / 64))) writeBin(member, con)
  close(con)
  path
}

# The peak resident memory of this process since the last reset, in bytes, and
# a reset (Linux: /proc/self/clear_refs). NULL where that is not available.
peak_memory_reset <- function() {
  tryCatch(
    {
      cat("5", file = "/proc/self/clear_refs")
      TRUE
    },
    error = function(e) FALSE,
    warning = function(w) FALSE
  )
}

peak_memory <- function() {
  status <- tryCatch(
    readLines("/proc/self/status"),
    error = function(e) character(),
    warning = function(w) character()
  )
  hwm <- grep("^VmHWM:", status, value = TRUE)
  if (!length(hwm)) {
    return(NULL)
  }
  as.numeric(gsub("[^0-9]", "", hwm)) * 1024
}

# Every file in `dir`, hidden ones too (a stray temporary file starts with a dot).
all_files <- function(dir) {
  sort(list.files(dir, all.files = TRUE, no.. = TRUE))
}
