# Hostile files for the bounded-memory tests (test-hostile-memory.R), and the
# child R process each is read in.
#
# A bomb is a compressed file whose data are a head, then one block repeated:
# the block is compressed once and its member written again and again (gunzip,
# R's bzfile() and xzfile() read concatenated members as one stream), so that
# 2 GiB of data take a few MB on disk and a second to make. Each is made once
# per session, in a temporary directory.

bombs_dir <- function() {
  dir <- file.path(tempdir(), "profile-bombs")
  dir.create(dir, showWarnings = FALSE)
  dir
}

# `bytes` compressed by the connection `open` makes (gzfile, bzfile, xzfile).
compressed_member <- function(bytes, open) {
  path <- tempfile()
  on.exit(unlink(path))
  con <- open(path, "wb")
  writeBin(bytes, con)
  close(con)
  readBin(path, "raw", file.size(path))
}

# The path of the bomb `name`: `head`, then `unit` repeated until the data have
# `total` bytes, in blocks of 8 MiB; made the first time it is asked for.
bomb_file <- function(name, head, unit, total = 2^31, open = gzfile) {
  path <- file.path(bombs_dir(), name)
  if (!file.exists(path)) {
    if (is.character(head)) head <- charToRaw(head)
    if (is.character(unit)) unit <- charToRaw(unit)
    block <- rep_len(unit, 2^23 - 2^23 %% length(unit))
    member <- compressed_member(block, open)
    partial <- paste0(path, ".part")
    con <- file(partial, "wb")
    if (length(head)) writeBin(compressed_member(head, open), con)
    for (i in seq_len(ceiling(total / length(block)))) writeBin(member, con)
    close(con)
    file.rename(partial, path)
  }
  path
}

# The start of a valid pprof message: the sample type samples/count, and the
# string table's first entries.
pprof_head <- function() {
  c(
    pb_len(1, c(pb_int(1, 1), pb_int(2, 2))),
    pb_len(6, ""),
    pb_len(6, "samples"),
    pb_len(6, "count")
  )
}

# A field of the string table (6) claiming `n` bytes, without them.
string_claiming <- function(n) c(pb_varint(6 * 8 + 2), pb_varint(n))

# The head of an OTLP ProfilesData whose length-delimited fields `fields`
# (outermost first) nest one in the other, the innermost claiming `n` bytes
# that follow: ProfilesData > ResourceProfiles (1) > ScopeProfiles (2) >
# Profile (2) > Sample (2) > values (4) for c(1, 2, 2, 2, 4).
otlp_claims <- function(fields, n) {
  head <- raw()
  for (field in rev(fields)) {
    claim <- c(pb_varint(field * 8 + 2), pb_varint(n + length(head)))
    head <- c(claim, head)
  }
  head
}

# The bombs and other hostile files, by name: the issue's three (a string
# table of 700 million one-byte strings, 240 million Rprof lines, zeros) and
# more of the same kinds.
bomb <- function(name) {
  switch(name,
    "strings.pb.gz" = bomb_file(name, pb_len(6, ""), pb_len(6, "a")),
    "lines.out.gz" = bomb_file(name, "sample.interval=20000\n", "\"f\" \"g\" \n"),
    "zeros.gz" = bomb_file(name, raw(), raw(1)),
    # a billion empty samples: a sample count no file of this size can hold
    "samples.pb.gz" = bomb_file(name, pprof_head(), pb_len(2, raw())),
    # a string of 2^40 bytes (over max_size), and one of 3 GiB (within max_size,
    # over the memory limit), each followed by zeros
    "length.pb.gz" = bomb_file(name, c(pprof_head(), string_claiming(2^40)), raw(1)),
    "string.pb.gz" = bomb_file(name, c(pprof_head(), string_claiming(3 * 2^30)), raw(1)),
    # lines of 1000 frames
    "stacks.out.gz" = bomb_file(
      name, "sample.interval=20000\n", c(rep(charToRaw("\"f\" "), 1000), charToRaw("\n"))
    ),


    # one stack of 1.2 million frames, over the depth limit
    "deep.out.gz" = bomb_file(name, "sample.interval=20000\n", charToRaw("\"f\" "), total = 4.8e6),
    # a location with 100 000 inlined lines, in the stack of many samples
    "inlined.pb.gz" = bomb_file(name,
      c(
        pprof_head(), pb_len(6, "f"),
        pb_len(5, c(pb_int(1, 1), pb_int(2, 3))),
        pb_len(4, c(pb_int(1, 1), rep(pb_len(4, pb_int(1, 1)), 1e5)))
      ),
      pb_len(2, c(pb_len(1, pb_varint(1)), pb_len(2, pb_varint(1)))),
      total = 2^23
    ),
    "lines.out.xz" = bomb_file(name, "sample.interval=20000\n", "\"f\" \"g\" \n", open = xzfile),
    # OTLP: 2 GiB of one-byte packed varints, the values of one sample (each
    # an 8-byte number decoded), and a billion empty samples
    "values.otlp.gz" = bomb_file(name, otlp_claims(c(1, 2, 2, 2, 4), 2^31), as.raw(1)),
    "samples.otlp.gz" = bomb_file(name, otlp_claims(c(1, 2, 2), 2^31), pb_len(2, raw())),
    "zeros.bz2" = bomb_file(name, raw(), raw(1), open = bzfile),
    stop("no such bomb: ", name)
  )
}

# Reads `path` with `reader` ("read_rprof" or "read_pprof") in a new R process
# whose address space is capped at `address_space` KB (`ulimit -v`, as in a
# container), and reports what happened there: `class` (of the error, or "ok"),
# `message`, `seconds`, and `peak`, the growth of the process's peak resident
# memory (VmHWM) from its start (R and the package loaded) to the end of the
# read, in bytes. A child that ends without a report (an abort) fails the test
# with what it printed.
read_in_capped_process <- function(reader, path, address_space = 4e6) {
  report <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(c(report, script)), add = TRUE)
  writeLines(c(
    "suppressPackageStartupMessages(library(profile))",
    "peak <- function() {",
    "  status <- readLines('/proc/self/status')",
    "  as.numeric(gsub('[^0-9]', '', grep('^VmHWM:', status, value = TRUE))) * 1024",
    "}",
    "before <- peak()",
    sprintf(
      "time <- system.time(res <- tryCatch({ %s(%s); 'ok' }, error = identity))",
      reader,
      deparse(path)
    ),
    "failed <- inherits(res, 'error')",
    "out <- list(",
    "  class = if (failed) class(res) else 'ok',",
    "  message = if (failed) conditionMessage(res) else '',",
    "  seconds = time[['elapsed']], peak = peak() - before",
    ")",
    sprintf("saveRDS(out, %s)", deparse(report))
  ), script)
  command <- sprintf(
    "ulimit -v %d && exec %s --vanilla %s 2>&1", as.integer(address_space),
    shQuote(file.path(R.home("bin"), "Rscript")), shQuote(script)
  )
  # The child finds the package where this session does; R CMD check's
  # startup file (R_TESTS) is not for it.
  env <- c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)), "R_TESTS=")
  output <- suppressWarnings(system2("bash", c("-c", shQuote(command)), stdout = TRUE, env = env))
  if (!file.exists(report)) {
    testthat::fail(
      paste(
        c(sprintf("%s(%s) ended the R process:", reader, basename(path)), output),
        collapse = "\n"
      )
    )
    return(NULL)
  }
  readRDS(report)
}

skip_unless_capped_processes <- function() {
  testthat::skip_on_cran()
  testthat::skip_on_os(c("windows", "mac", "solaris"))
  testthat::skip_if_not(file.exists("/proc/self/status"), "no /proc/self/status (VmHWM)")
  testthat::skip_if(!nzchar(Sys.which("bash")), "no bash (ulimit)")
}

# The CPU time (user and system) of this process in a system.time() result:
# what a time limit of a test measures, as a loaded machine stretches the
# elapsed time but not the work done.
cpu_seconds <- function(time) {
  time[["user.self"]] + time[["sys.self"]]
}
