# Helpers for the pprof tests: running `go tool pprof`, reading its -raw output,
# and building protobuf messages by hand (for malformed input).

skip_if_no_go <- function() {
  skip_in_check_second_run("the comparisons with go tool pprof")
  if (!nzchar(Sys.which("go"))) {
    testthat::skip("Go is not installed (needed for `go tool pprof`)")
  }
}

# The standard output of `go tool pprof -<mode> [args] path`, as lines; a non-zero
# exit status fails the test (standard error is shown then).
#
# The suite asks Go's pprof about a thousand times, often the same question of
# the same file (the original of each verb's comparison). So the program is
# the one `go tool` runs (`go tool -n pprof` names it; starting the go command
# first took a third of each call), and an answer is kept for the test run,
# keyed by the file's bytes (its MD5) and the arguments: Go's answer about the
# same bytes with the same flags is the same.
go_pprof <- function(mode, path, args = character()) {
  key <- paste(c(mode, args, unname(tools::md5sum(path))), collapse = "\r")
  if (!is.null(go_pprof_state$answers[[key]])) {
    return(go_pprof_state$answers[[key]])
  }
  err <- tempfile()
  on.exit(unlink(err), add = TRUE)
  pprof <- go_pprof_program()
  out <- suppressWarnings(system2(
    pprof[[1]], c(pprof[-1], paste0("-", mode), args, shQuote(path)),
    stdout = TRUE, stderr = err
  ))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) {
    testthat::fail(paste(c("go tool pprof failed:", readLines(err)), collapse = "\n"))
    return(out)
  }
  go_pprof_state$answers[[key]] <- out
  out
}

go_pprof_state <- new.env(parent = emptyenv())
go_pprof_state$answers <- list()

# The command of Go's pprof: the program `go tool pprof` runs, or that
# command itself where `go tool -n` names no program.
go_pprof_program <- function() {
  if (is.null(go_pprof_state$program)) {
    path <- suppressWarnings(system2("go", c("tool", "-n", "pprof"), stdout = TRUE, stderr = FALSE))
    found <- length(path) == 1L && is.null(attr(path, "status")) && file.exists(path)
    go_pprof_state$program <- if (found) path else c("go", "tool", "pprof")
  }
  go_pprof_state$program
}

# The samples of `go tool pprof -raw` output: a list with `types` ("type/unit")
# and `samples`, a data frame with one row per sample: `values` (numbers joined
# by " "), `frames` (each frame as "function file:line", innermost first, joined
# by "\n") and `labels` (pprof's label lines joined by "\n").
parse_pprof_raw <- function(lines) {
  start <- match("Samples:", lines)
  loc_start <- match("Locations", lines)
  map_start <- match("Mappings", lines)
  # the default sample type is marked `type/unit[dflt]`
  types <- sub("[dflt]", "", strsplit(trimws(lines[[start + 1L]]), " +")[[1]], fixed = TRUE)

  loc_lines <- lines[seq(loc_start + 1L, map_start - 1L)]
  frames_of <- list()
  current <- NULL
  for (l in loc_lines) {
    m <- regmatches(l, regexec("^ *([0-9]+): 0x[0-9a-f]+ (M=[0-9]+ )?(.*)$", l))[[1]]
    if (length(m)) {
      current <- m[[2]]
      frame <- m[[4]]
      frames_of[[current]] <- if (nzchar(frame)) frame else character()
    } else {
      frames_of[[current]] <- c(frames_of[[current]], trimws(l))
    }
  }
  frames_of <- lapply(frames_of, function(f) sub(" s=[0-9]+$", "", f))

  sample_lines <- lines[seq(start + 2L, loc_start - 1L)]
  is_head <- grepl(":", sample_lines) & !grepl("^ {16}", sample_lines)
  group <- cumsum(is_head)
  samples <- lapply(split(sample_lines, group), function(s) {
    parts <- strsplit(s[[1]], ":", fixed = TRUE)[[1]]
    values <- as.numeric(strsplit(trimws(parts[[1]]), " +")[[1]])
    ids <- strsplit(trimws(parts[[2]]), " +")[[1]]
    ids <- ids[nzchar(ids)]
    frames <- unlist(frames_of[ids], use.names = FALSE)
    data.frame(
      values = paste(values, collapse = " "),
      frames = paste(frames, collapse = "\n"),
      labels = paste(trimws(s[-1]), collapse = "\n")
    )
  })
  list(types = types, samples = do.call(rbind, samples))
}

# The same view of a v2 profile read from a pprof file (one source), formatted
# the way `go tool pprof -raw` formats samples.
pprof_view_of_v2 <- function(x) {
  t <- dm::dm_get_tables(x)
  types <- paste0(t$sample_types$type, "/", t$sample_types$unit)
  sv <- t$sample_values
  values <- tapply(sv$value, factor(sv$sample_id, t$samples$sample_id), function(v) {
    paste(v, collapse = " ")
  })

  loc <- t$locations
  fun <- t$functions[match(loc$function_id, t$functions$function_id), ]
  frame <- paste0(fun$name, " ", fun$filename, ":", loc$line)
  sl <- t$sample_locations
  sl <- sl[order(sl$sample_id, sl$depth), ]
  frames <- tapply(
    frame[match(sl$location_id, loc$location_id)],
    factor(sl$sample_id, t$samples$sample_id),
    paste,
    collapse = "\n"
  )
  frames[is.na(frames)] <- ""

  lab <- t$sample_labels
  label_line <- function(rows, numeric) {
    if (!length(rows)) {
      return(character())
    }
    text <- if (numeric) {
      ifelse(is.na(lab$num_unit[rows]), format(lab$num[rows], scientific = FALSE),
        paste(format(lab$num[rows], scientific = FALSE), lab$num_unit[rows])
      )
    } else {
      lab$value[rows]
    }
    by_key <- split(text, lab$key[rows])
    paste(
      sort(paste0(names(by_key), ":[", vapply(by_key, paste, "", collapse = " "), "]")),
      collapse = " "
    )
  }
  labels <- vapply(t$samples$sample_id, function(id) {
    rows <- which(lab$sample_id == id)
    str_rows <- rows[!is.na(lab$value[rows])]
    num_rows <- rows[is.na(lab$value[rows])]
    paste(c(label_line(str_rows, FALSE), label_line(num_rows, TRUE)), collapse = "\n")
  }, character(1))

  list(
    types = types,
    samples = data.frame(values = unname(values), frames = unname(frames), labels = labels)
  )
}

# pprof's own view merges samples with equal stacks and labels and drops samples
# whose values are all zero: apply the same to compare with it.
merged_samples <- function(samples) {
  key <- paste(samples$frames, samples$labels, sep = "\r")
  values <- do.call(rbind, lapply(strsplit(samples$values, " "), as.numeric))
  sums <- rowsum(values, key, reorder = FALSE)
  keep <- rowSums(sums != 0) > 0
  keys <- strsplit(rownames(sums)[keep], "\r", fixed = TRUE)
  out <- data.frame(
    values = apply(sums[keep, , drop = FALSE], 1, paste, collapse = " "),
    frames = vapply(keys, `[`, "", 1),
    labels = vapply(keys, function(k) if (length(k) > 1) k[[2]] else "", ""),
    row.names = NULL
  )
  out[do.call(order, out), , drop = FALSE]
}

# ---------------------------------------------------------------------------
# A protobuf encoder small enough to build malformed messages by hand

pb_varint <- function(x) {
  stopifnot(x >= 0)
  out <- raw()
  repeat {
    byte <- x %% 128
    x <- x %/% 128
    if (x == 0) {
      return(c(out, as.raw(byte)))
    }
    out <- c(out, as.raw(byte + 128))
  }
}

pb_int <- function(field, x) c(pb_varint(field * 8), pb_varint(x))

pb_len <- function(field, payload) {
  if (is.character(payload)) payload <- charToRaw(payload)
  c(pb_varint(field * 8 + 2), pb_varint(length(payload)), payload)
}

# A small valid pprof message, with arguments to break it. The defaults give:
# sample type samples/count; functions 1 "f" and 2 "g" in "file.go"; location 1
# (function 1, line 10, inlined into function 2, line 20) and location 2
# (function 2, line 30); one sample with the stack 1, 2, the value 5 and the
# label worker = "w".
pprof_message <- function(strings = c("", "samples", "count", "f", "g", "file.go", "worker", "w"),
                          values = 5, stack = c(1, 2), location_ids = c(1, 2),
                          function_ids = c(1, 2), line_functions = c(1, 2, 2),
                          function_name = 3, label_key = 6) {
  sample <- c(
    pb_len(1, unlist(lapply(stack, pb_varint))),
    pb_len(2, unlist(lapply(values, pb_varint))),
    pb_len(3, c(pb_int(1, label_key), pb_int(2, 7)))
  )
  line <- function(fn, l) pb_len(4, c(pb_int(1, fn), pb_int(2, l)))
  loc1 <- c(
    pb_int(1, location_ids[[1]]), line(line_functions[[1]], 10), line(line_functions[[2]], 20)
  )
  loc2 <- c(pb_int(1, location_ids[[2]]), line(line_functions[[3]], 30))
  fun <- function(id, name) c(pb_int(1, id), pb_int(2, name), pb_int(3, name), pb_int(4, 5))
  c(
    pb_len(1, c(pb_int(1, 1), pb_int(2, 2))),
    pb_len(2, sample),
    pb_len(4, loc1),
    pb_len(4, loc2),
    pb_len(5, fun(function_ids[[1]], function_name)),
    pb_len(5, fun(function_ids[[2]], 4)),
    unlist(lapply(strings, function(s) pb_len(6, s)))
  )
}

write_raw <- function(bytes, fileext = ".pb") {
  path <- tempfile(fileext = fileext)
  writeBin(bytes, path)
  path
}

# Writes `bytes` gzip-compressed (memCompress() writes zlib, not gzip).
write_gz <- function(bytes) {
  path <- tempfile(fileext = ".pb.gz")
  con <- gzfile(path, "wb")
  writeBin(bytes, con)
  close(con)
  path
}

# The decompressed bytes of a gzip file.
read_gz <- function(path) {
  con <- gzfile(path, "rb")
  on.exit(close(con))
  out <- raw()
  repeat {
    chunk <- readBin(con, "raw", 1e6)
    if (!length(chunk)) break
    out <- c(out, chunk)
  }
  out
}
