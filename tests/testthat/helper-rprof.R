# Helpers for the Rprof tests: an independent reading of Rprof files (regular
# expressions over readLines(), not the Rust scanner) and recording fresh
# profiles with Rprof(). CRAN profile 1.0.4 runs through helper-profile104.R.

rprof_sample_files <- c(
  "1.out",
  "memory.out",
  "gc.out",
  "line.out",
  "all.out",
  "append.out",
  "incomplete.out",
  "toplevel.out"
)

# The lines of an Rprof file, split into segments (one per header), each with its
# header, its #File table (number -> path) and its stack lines.
rprof_segments <- function(path) {
  lines <- readLines(path, warn = FALSE)
  is_header <- grepl("^([A-Za-z ]+ profiling: )*sample\\.interval=[0-9]+$", lines)
  segment <- cumsum(is_header)
  lapply(split(seq_along(lines), segment), function(rows) {
    l <- lines[rows]
    is_file <- grepl("^#File [0-9]+: ", l)
    files <- sub("^#File [0-9]+: ", "", l[is_file])
    names(files) <- sub("^#File ([0-9]+): .*", "\\1", l[is_file])
    stack <- l[-1][!is_file[-1] & nzchar(l[-1])]
    list(header = l[[1]], files = files, stack = stack)
  })
}

# Frames of one stack line as a data frame (name, file, line), innermost first.
# A frame is `"name" ` optionally preceded by `N#L `; a name ends at a quote
# followed by a space and then the end of the line, a quote or a reference. A
# reference `N#L ` at the end of the line, after a frame or alone, is the top
# level's: a frame named "<top level>".
rprof_line_frames <- function(line, files) {
  line <- sub("^:[0-9]+:[0-9]+:[0-9]+:[0-9]+:", "", line)
  rx <- '(?:([0-9]+)#([0-9]+) )?"(.*?)" (?=$|"|[0-9]+#[0-9]+ )'
  m <- regexec_all(rx, line)
  top <- regmatches(line, regexec('(?:^|" )([0-9]+)#([0-9]+) $', line))[[1]]
  if (length(top)) {
    m <- c(m, list(c("", top[[2]], top[[3]], "<top level>")))
  }
  data.frame(
    name = vapply(m, `[[`, "", 4L),
    file = vapply(m, function(x) if (nzchar(x[[2]])) unname(files[x[[2]]]) else "", ""),
    line = vapply(m, function(x) if (nzchar(x[[3]])) as.integer(x[[3]]) else 0L, 0L)
  )
}

regexec_all <- function(rx, text) {
  starts <- gregexpr(rx, text, perl = TRUE)[[1]]
  if (starts[[1]] == -1L) {
    return(list())
  }
  lens <- attr(starts, "match.length")
  pieces <- substring(text, starts, starts + lens - 1L)
  lapply(pieces, function(p) regmatches(p, regexec(rx, p, perl = TRUE))[[1]])
}

# Every stack of the file, innermost first, as "name@file:line" strings.
rprof_expected_stacks <- function(path) {
  unname(unlist(lapply(rprof_segments(path), function(s) {
    lapply(s$stack, function(l) {
      f <- rprof_line_frames(l, s$files)
      if (nrow(f)) paste0(f$name, "@", f$file, ":", f$line) else character()
    })
  }), recursive = FALSE))
}

# The same from a v2 profile.
v2_stacks <- function(x) {
  t <- dm::dm_get_tables(x)
  sl <- t$sample_locations[order(t$sample_locations$sample_id, t$sample_locations$depth), ]
  loc <- t$locations[match(sl$location_id, t$locations$location_id), ]
  fun <- t$functions[match(loc$function_id, t$functions$function_id), ]
  desc <- paste0(fun$name, "@", fun$filename, ":", loc$line)
  unname(split(desc, factor(sl$sample_id, levels = t$samples$sample_id)))
}

# The memory prefix of each stack line as a numeric matrix (small, large, nodes, dups).
rprof_memory_fields <- function(path) {
  stack <- unlist(lapply(rprof_segments(path), `[[`, "stack"))
  m <- regmatches(stack, regexec("^:([0-9]+):([0-9]+):([0-9]+):([0-9]+):", stack))
  unname(t(vapply(m, function(x) as.numeric(x[2:5]), numeric(4))))
}

v2_values <- function(x, type) {
  sv <- dm::dm_get_tables(x)$sample_values
  sv$value[sv$type == type]
}

# Records a profile of a small workload (sourced with srcrefs, so that line
# profiling has files and lines) with Rprof(...) into `path`. Each of the four
# calls in the loop takes a few milliseconds, so every one of them shows up in
# a profile of a few tenths of a second.
record_rprof <- function(path, ..., seconds = 0.4, append = FALSE) {
  code <- c(
    "spin <- function(n) {",
    "  s <- 0",
    "  for (i in seq_len(n)) s <- s + sqrt(i)",
    "  s",
    "}",
    "grow <- function(n) {",
    "  x <- numeric(0)",
    "  for (i in seq_len(n)) x <- c(x, i)",
    "  length(x)",
    "}",
    "lst <- list(a = function(n) spin(n), `b c` = function(n) grow(n))",
    "work <- function(seconds) {",
    "  start <- proc.time()[[1]]",
    "  while (proc.time()[[1]] - start < seconds) {",
    "    spin(20000)",
    "    lst[[\"a\"]](20000)",
    "    lst[[\"b c\"]](1500)",
    "    stats::median(runif(1e5))",
    "    if (runif(1) < 0.05) gc()",
    "  }",
    "}"
  )
  src <- tempfile(fileext = ".R")
  writeLines(code, src)
  env <- new.env()
  sys.source(src, envir = env, keep.source = TRUE)
  utils::Rprof(path, interval = 0.005, append = append, ...)
  on.exit(utils::Rprof(NULL), add = TRUE)
  env$work(seconds)
  invisible(path)
}

# Runs `expr`, returning its value and the messages of its warnings.
with_warnings <- function(expr) {
  w <- character()
  value <- withCallingHandlers(expr, warning = function(c) {
    w <<- c(w, conditionMessage(c))
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = w)
}

v2_table_list <- function(x) {
  lapply(dm::dm_get_tables(x), as.data.frame)
}

# Writes `lines` to the connection `con` (e.g. a gzfile()) and closes it.
write_lines_to <- function(lines, con) {
  on.exit(close(con))
  writeLines(lines, con)
}

# 1.0.4's read_rprof() on each of `paths`, in one child process: a list with
# `value`, `error` and `warnings` per path.
rprof104_read <- function(paths) {
  profile104_call("read_rprof", lapply(normalizePath(paths), list))
}
