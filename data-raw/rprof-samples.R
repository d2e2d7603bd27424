# Records the Rprof() sample files shipped in inst/samples/rprof/.
#
# Run from the package root:
#
#   Rscript data-raw/rprof-samples.R              # all files
#   Rscript data-raw/rprof-samples.R gc.out       # some files
#
# Every file is recorded by a fresh R process (this script, called again
# with --record), so each one starts from the same state: nothing
# byte-compiled yet, an empty heap. The workloads live in
# data-raw/rprof-workloads/ and are sourced with keep.source = TRUE, which
# is what line profiling needs. They run for a fixed amount of CPU time,
# so the sample counts vary a little from run to run, the shape does not.
# See data-raw/README.md for what each file exercises.

workload_dir <- file.path("data-raw", "rprof-workloads")
out_dir <- file.path("inst", "samples", "rprof")

all_files <- c(
  "1.out", "memory.out", "gc.out", "line.out", "all.out",
  "append.out", "incomplete.out", "toplevel.out"
)

max_bytes <- 200 * 1024

# ---------------------------------------------------------------------------
# Child mode: record one profile into a given file and exit.
# Everything here runs at top level (no wrapping function), so the bottom
# frame of every stack is the workload itself, and the idle loops below
# really run with an empty call stack.

args <- commandArgs(trailingOnly = TRUE)

# One branch per file, at top level on purpose (see above): a function around
# them would be a frame of every recorded stack.
# nolint start: cyclocomp_linter.
if (length(args) == 3L && args[[1L]] == "--record") {
  name <- args[[2L]]
  out <- args[[3L]]

  for (f in sort(list.files(workload_dir, pattern = "[.]R$", full.names = TRUE))) {
    source(f, keep.source = TRUE)
  }
  set.seed(20240601)

  if (name == "1.out") {
    # Plain time profile. No quoted frame names, so that profile 1.0.4 reads
    # it completely (data-raw/proto-samples.R converts it with 1.0.4).
    Rprof(out, interval = 0.005)
    keep_going <- budget(3)
    while (keep_going()) time_round()
    Rprof(NULL)
  } else if (name == "memory.out") {
    # Memory profiling: each line starts with :small:large:nodes:dups:.
    # The top-level loop at the end samples an empty call stack, which
    # gives lines that consist of the memory prefix only.
    Rprof(out, interval = 0.005, memory.profiling = TRUE)
    keep_going <- budget(1.6)
    while (keep_going()) memory_round()
    z <- 0
    for (i in seq_len(3e6)) z <- z + i %% 3L
    Rprof(NULL)
  } else if (name == "gc.out") {
    # GC profiling: "<GC>" is the innermost frame while the collector runs.
    Rprof(out, interval = 0.004, gc.profiling = TRUE)
    keep_going <- budget(1.6)
    while (keep_going()) gc_round()
    Rprof(NULL)
  } else if (name == "line.out") {
    # Line profiling: "#File N: path" lines and "N#L" references.
    Rprof(out, interval = 0.005, line.profiling = TRUE)
    keep_going <- budget(1.6)
    while (keep_going()) {
      time_round()
      quoted_round()
      memory_round()
    }
    Rprof(NULL)
  } else if (name == "all.out") {
    # Memory, GC and line profiling together.
    Rprof(out,
      interval = 0.004, memory.profiling = TRUE,
      gc.profiling = TRUE, line.profiling = TRUE
    )
    keep_going <- budget(1.6)
    while (keep_going()) {
      gc_round()
      time_round()
      quoted_round()
    }
    z <- 0
    for (i in seq_len(1e6)) z <- z + i %% 3L
    Rprof(NULL)
  } else if (name == "append.out") {
    # Three sessions into one file, each with its own header line.
    Rprof(out, interval = 0.002)
    keep_going <- budget(0.4)
    while (keep_going()) time_round()
    Rprof(NULL)

    Rprof(out, interval = 0.005, append = TRUE, line.profiling = TRUE)
    keep_going <- budget(0.6)
    while (keep_going()) {
      time_round()
      quoted_round()
    }
    Rprof(NULL)

    Rprof(out,
      interval = 0.01, append = TRUE, memory.profiling = TRUE,
      gc.profiling = TRUE
    )
    keep_going <- budget(1)
    while (keep_going()) gc_round()
    Rprof(NULL)
  } else if (name == "incomplete.out") {
    # A line profile; the parent process cuts its last line in two. No
    # quoted frame names: with 1.0.4 this file gives just the warning
    # about incomplete sampling information.
    Rprof(out, interval = 0.005, line.profiling = TRUE)
    keep_going <- budget(0.5)
    while (keep_going()) time_round()
    Rprof(NULL)
  } else {
    stop("unknown sample file: ", name)
  }
  quit(save = "no", status = 0L)
}
# nolint end

# ---------------------------------------------------------------------------
# Parent mode.

if (!file.exists(file.path(workload_dir, "rounds.R"))) {
  stop("run this script from the package root (the directory with DESCRIPTION)")
}

# Cuts the last stack line of an Rprof file in the middle of a frame name,
# as happens when the profiler output is cut short. The line stays
# newline-terminated, like the incomplete.out shipped by profile 1.0.x.
truncate_last_line <- function(lines) {
  is_trace <- !grepl("^(#File |.*sample\\.interval=)", lines)
  n_frames <- lengths(regmatches(lines, gregexpr("\" ", lines, fixed = TRUE)))
  last <- max(which(is_trace & n_frames >= 3L))
  lines <- lines[seq_len(last)]
  line <- lines[[last]]
  # opening quotes of the frames: a quote at the start or after a space
  opening <- gregexpr("(?:^| )\\K\"", line, perl = TRUE)[[1L]]
  middle <- opening[[ceiling(length(opening) / 2)]]
  lines[[last]] <- substr(line, 1L, middle + 2L)
  lines
}

count_samples <- function(lines) {
  sum(!grepl("^#File ", lines) & !grepl("sample\\.interval=", lines))
}

record <- function(name) {
  tmp <- tempfile(fileext = ".out")
  on.exit(unlink(tmp), add = TRUE)
  status <- if (name == "toplevel.out") {
    # console input, not a script (see the file)
    system2(file.path(R.home("bin"), "R"), c(
      "--vanilla", "--no-echo", "-f", "data-raw/rprof-toplevel.R", "--args", tmp
    ))
  } else {
    rscript <- file.path(R.home("bin"), "Rscript")
    system2(rscript, c("--vanilla", "data-raw/rprof-samples.R", "--record", name, tmp))
  }
  if (!identical(status, 0L) || !file.exists(tmp)) {
    stop("recording ", name, " failed")
  }
  lines <- readLines(tmp)
  if (name == "incomplete.out") {
    lines <- truncate_last_line(lines)
  }
  dest <- file.path(out_dir, name)
  staged <- paste0(dest, ".tmp")
  con <- file(staged, open = "wb")
  writeLines(lines, con, sep = "\n")
  close(con)
  size <- file.size(staged)
  if (size > max_bytes) {
    unlink(staged)
    stop(name, " is too large (", size, " bytes)")
  }
  file.rename(staged, dest)
  message(sprintf("%-15s %6d bytes %5d samples", name, size, count_samples(lines)))
}

wanted <- if (length(args)) args else all_files
unknown <- setdiff(wanted, all_files)
if (length(unknown)) stop("unknown sample file(s): ", paste(unknown, collapse = ", "))

dir.create(out_dir, recursive = TRUE, showWarnings = FALSE)
for (name in wanted) record(name)
