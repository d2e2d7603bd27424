#' Read and write Rprof files
#'
#' @description
#' `read_rprof()` reads a file written by R's profiler, [utils::Rprof()], in any
#' of its modes (time, memory, GC and line profiling, and files extended with
#' `Rprof(append = TRUE)`), plain or compressed with gzip, bzip2 or xz.
#'
#' `write_rprof()` writes a profile, v2 or v1, from any source, as an Rprof file
#' that [utils::summaryRprof()] and `profvis` read.
#'
#' @details
#' # Reading
#'
#' Each header line of the file (`sample.interval=...`, after flags such as
#' `memory profiling: `) starts a *segment*: `Rprof(append = TRUE)` adds a header
#' for each profiling session. Each segment becomes one row of `sources`
#' (`source_type` `"rprof"`, `period` the sampling interval in nanoseconds,
#' `rprof_header` the header line itself, `default_sample_type` `"samples"`),
#' and its `#File N:` lines number the files of that segment only.
#'
#' Each stack line (one timer tick) becomes one sample with the value
#' `samples`/`count`/1 and its frames, innermost first. Its `time` (an extension
#' column of `samples`) is the tick's time in seconds from the start of the
#' segment: the `i`-th line of a segment is at `(i - 1) * interval`, the
#' interval of the header. Frame names are kept
#' verbatim in `name` and `system_name` (`"x[[\"a\"]]"`, `"pkg::f"`,
#' `"obj$f"`, `"<GC>"`, ...). With line profiling, an `N#L` reference before a
#' frame gives that frame's file (from the `#File N:` line with that number)
#' and line. A function is a name in a file (the file is `""` without line
#' profiling); its `start_line` is the smallest line seen in it. Ids are given
#' in order of first appearance. A reference after the outermost frame, or
#' alone on a line (followed by the space R writes after it, else the line was
#' cut), is the line of the top-level code (code typed at the
#' console or run with `R -f` while source references are kept): it is read,
#' without a warning, as an outermost frame of its own, a function named
#' `"<top level>"` with the empty `system_name`, and written back as it was
#' (see "The top level" in [profile_v2]).
#'
#' With memory profiling each line starts with `:small:large:nodes:dups:`. It
#' gives each sample five more values: the heap gauges `small_vector_heap`,
#' `large_vector_heap` and `node_heap` (bytes), `duplications` (count) and
#' `alloc_size`, the growth of the heaps since the previous tick of the same
#' segment (bytes; summed per function it gives the `mem.total` of
#' `summaryRprof(memory = "both")`). A tick with an empty call stack (R writes
#' the prefix only) is a sample without locations. The prefix must be four
#' whole numbers: a field that is empty, signed, not made of digits or larger
#' than 2^64 - 1, and fewer or more than four fields, are refused with an error
#' of class `profile_error_format` naming the line, except in the last line of
#' the file, cut off inside its prefix, which gets the warning for cut lines
#' below.
#'
#' A line that was cut off (a profile written by a process that was killed)
#' is read up to its last complete frame, with the warning profile 1.0.x gave:
#' `Incomplete sampling information, increase bufsize in Rprof() or
#' start_profiler() call`. Unreadable text in a line gives
#' `Removing unexpected incomplete sampling information.` A file that does not
#' start with a header, or that holds a NUL byte (binary data, which R never
#' writes), is refused with an error of class `profile_error_format` (see
#' [profile_error]); so is a stack of more than 1 000 000 frames, with
#' `profile_error_limit`. Names that are not valid UTF-8 (a latin1 session's,
#' say) are read with invalid bytes as `<xx>` (see [profile_v2]).
#'
#' With `version = "1.0"`, `read_rprof()` returns what profile 1.0.x returned
#' (see [profile_v1]): functions numbered in byte order of their name (and
#' file), the `name` column with `.` replaced by `_` and `<GC>` by `gc`, the
#' dotted column `.file_id` and the component `.rprof` with the lines of the
#' file. profile 1.0.x mishandled some files; here memory prefixes, appended
#' sessions and names with quotes are read correctly, and `#File` lines are
#' matched by their number.
#'
#' # Writing
#'
#' Each row of `sources` becomes a segment, in the order of the table, with its
#' samples in `sample_id` order. A profile read by `read_rprof()` is written back
#' as R wrote it: the same header, `#File` lines just before the first line that
#' uses them, line references (the top level's after the outermost frame), the
#' memory prefix from the heap gauges, the frame names. The `time` column is not
#' written: the order of the lines is the time. Other profiles (from pprof, v1
#' objects, built by hand) get a header made from their content
#' (`sample.interval` from `period` when it is in
#' nanoseconds, else 20000; `line profiling` when frames have files or lines),
#' and each sample is written as many times as its `samples` count says, since
#' an Rprof line is one tick.
#'
#' The file is written to a temporary file next to `path` and renamed when
#' complete, so an error never leaves a partly written file.
#'
#' @param path Path of the file to read or write.
#' @param ... Not used; must be empty.
#' @param version `"2.0"` (the default) for a v2 profile (see [profile_v2]);
#'   `"1.0"` for a v1 object as returned by profile 1.0.x (see [profile_v1]).
#' @param source_uri Recorded as `source_uri` in the `sources` table (v2).
#'   Defaults to `path`.
#' @param max_size The largest size, in bytes, of the file and of its data after
#'   decompression. Protects memory against decompression bombs; raise it to read
#'   larger profiles. The default is the option `profile.max_size`, else 4 GiB.
#'   The memory a read may use is bounded by the option `profile.max_memory`.
#'   See [profile_error] for these and the other limits.
#' @param x A profile: a v2 `dm` or a v1 `profile_data` object.
#' @return `read_rprof()`: a v2 profile (a `dm`), or a v1 `profile_data` object
#'   with `version = "1.0"`. `write_rprof()`: `x`, invisibly.
#' @seealso [read_pprof()], [write_pprof()] for pprof files.
#' @export
#' @examples
#' path <- system.file("samples/rprof/memory.out", package = "profile")
#' x <- read_rprof(path)
#' x
#' tables <- dm::dm_get_tables(x)
#' tables$sources
#' head(tables$sample_values)
#'
#' # Write it back: the same file
#' out <- tempfile(fileext = ".out")
#' write_rprof(x, out)
#' identical(readLines(out), readLines(path))
#' head(utils::summaryRprof(out, memory = "both")$by.total)
#'
#' # v1, as profile 1.0.x read it
#' read_rprof(system.file("samples/rprof/1.out", package = "profile"), version = "1.0")
read_rprof <- function(path, ..., version = "2.0", source_uri = path,
                       max_size = default_max_size()) {
  message <- "Can't read the Rprof file {.file {path}}."
  with_profile_errors("internal", message, path = path, {
    args <- check_read_args(path, ...,
      version = version, source_uri = source_uri, max_size = max_size
    )
    file <- native_path(path)
    v1 <- identical(args$version, "1.0")
    input <- rprof_input(file, path, args$max_size, args$max_memory)
    res <- rust_value(
      ffi_rprof_read(input, args$source_uri, args$max_size, args$max_memory, v1,
        compact = compact_columns_option(), from_shape = TRUE
      ),
      message,
      path = path
    )
    warn_rprof(res$warnings)
    if (v1) {
      v1_from_rprof(decode_bundle(res$bundle), res$sample_lines, readLines(file, warn = FALSE))
    } else {
      dm_from_bundle(res$bundle)
    }
  })
}

# The warnings of an Rprof read (their texts, from Rust), each raised with the
# class of its kind (`profile_warning_incomplete`, ...; see ?profile_error) and
# `profile_warning`. The texts are profile 1.0.4's, which users match on.
warn_rprof <- function(texts) {
  kinds <- v2_schema()$rprof_warnings
  for (text in texts) {
    kind <- names(kinds)[match(text, unlist(kinds))]
    class <- c(if (!is.na(kind)) paste0("profile_warning_", kind), "profile_warning")
    warning(warningCondition(text, class = class))
  }
}

#' @rdname read_rprof
#' @export
write_rprof <- function(x, path) {
  message <- "Can't write {.arg x} as the Rprof file {.file {path}}."
  with_profile_errors("invalid", message, path = path, {
    path <- check_file_path(path)
    if (is_db_profile(x)) {
      # one segment per source: written a few sources at a time
      write_by_sources(x, path, write_rprof)
      return(invisible(x))
    }
    tables <- if (inherits(x, "profile_data")) {
      # One sample per v1 row with its count: the writer repeats the line `value`
      # times (one line per tick) without `value` rows in memory.
      validate_v1(x)
      v2_tables_from_v1(x, repeat_rows = FALSE)
    } else {
      # what R must check; the writer in Rust checks the content rules
      check_v2_tables(x)
    }
    rust_value(
      ffi_rprof_write(bundle_from_tables(tables), native_path(path)),
      "Can't write the Rprof file {.file {path}}.",
      path = path
    )
  })
  invisible(x)
}

# What Rust reads: the path of a plain or gzip file (Rust reads and inflates it),
# or the bytes of a bzip2 or xz file, decompressed here (the Rust side has no
# decoder for these) under the same limits, each piece shown to Rust as it
# comes, as Rust inflation does: data that are not an Rprof file are refused
# after their first bytes, data that need more memory than `max_memory` as soon
# as that is known. `file` is the native path, `path` the one the user gave
# (for messages).
rprof_input <- function(file, path, max_size, max_memory, call = rlang::caller_env()) {
  magic <- tryCatch(readBin(file, "raw", 6L), error = function(e) {
    abort_profile("io", "Can't read {.file {path}}.",
      detail = conditionMessage(e), path = path, call = call
    )
  })
  xz_magic <- as.raw(c(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00))
  open_decompressed <- if (length(magic) >= 3L && identical(magic[1:3], charToRaw("BZh"))) {
    bzfile
  } else if (identical(magic, xz_magic)) {
    xzfile
  } else {
    return(file)
  }
  message <- "Can't read the Rprof file {.file {path}}."
  stream <- rust_value(
    ffi_rprof_stream_start(max_size, max_memory), message,
    path = path, call = call
  )
  take <- function(piece) {
    rust_value(ffi_rprof_stream_take(stream, piece), message, path = path, call = call)
  }
  open <- function() open_decompressed(file, "rb")
  read_connection_limited(open, max_size, path, take = take, call = call)
}

# All bytes of a binary connection (`open()` opens it anew), refusing more than
# `max_size`; `take(piece)` sees each piece as it is read (every byte once, in
# order; the first piece small) and may raise an error that ends the reading.
# Data are kept while their size is plausible for the size of the file (the
# Rust core's rule and numbers: 64 times it, at least 64 MiB); past that they
# are only counted, and data within the limit are read a second time into a
# vector of the exact size. A decompression bomb is thus refused without being
# held in memory.
read_connection_limited <- function(open, max_size, path, take = function(piece) NULL,
                                    chunk_size = 2^23, call = rlang::caller_env()) {
  fail <- function(e) {
    abort_profile("format", "Can't decompress {.file {path}}.",
      detail = conditionMessage(e), path = path, call = call
    )
  }
  read_chunk <- function(con, n) {
    tryCatch(withCallingHandlers(readBin(con, "raw", n), warning = fail), error = fail)
  }
  limits <- v2_schema()$limits
  plausible <- limits$eager_ratio * file.size(path.expand(path))
  eager <- min(max_size, max(limits$eager_min_bytes, plausible))
  con <- open()
  on.exit(close(con), add = TRUE)
  chunks <- list()
  total <- 0
  # The first piece is as small as what tells the format.
  piece_size <- limits$sniff_bytes
  repeat {
    # At most one byte past the limit, to tell "at the limit" from "over it".
    piece <- read_chunk(con, min(piece_size, max_size + 1 - total))
    piece_size <- chunk_size
    if (!length(piece)) break
    total <- total + length(piece)
    if (total > max_size) {
      abort_profile("limit",
        "Can't read {.file {path}}: its data exceed {.arg max_size} ({max_size} bytes).",
        max_size = max_size, path = path, call = call
      )
    }
    take(piece)
    if (total <= eager) {
      chunks[[length(chunks) + 1L]] <- piece
    } else {
      chunks <- NULL
    }
  }
  if (!is.null(chunks)) {
    return(if (length(chunks) == 1L) chunks[[1L]] else do.call(c, c(list(raw()), chunks)))
  }
  close(con)
  con <- open()
  read_chunk(con, total)
}
