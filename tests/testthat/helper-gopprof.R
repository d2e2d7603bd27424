# `go tool pprof` as the oracle of the verbs (R/verbs.R): a profile written with
# write_pprof() after a verb must show the same `-top` rows and `-traces` as go
# tool pprof given the verb's flag on the profile before the verb.
#
# `expect_go_agrees(original, ours, flags = "-focus=main\\.fib")` compares go
# tool pprof's reports of `ours` with those of `original` (a pprof file) under
# `flags`, for the last sample type of `original` (the one Go shows unless the
# file names a default) or, with `types = "all"`, for each of them.
# The pieces can be used alone: go_top() and go_traces() read the reports into
# data frames, go_sample_types() lists a file's types. go_pprof() and
# skip_if_no_go() are in helper-pprof.R. Each report is one run of go tool
# pprof (about 0.1 s).

# The sample types of a pprof file, as go tool pprof lists them: a data frame
# of `type` and `unit` (remembered per file and modification time).
go_sample_types <- function(path) {
  key <- paste(normalizePath(path), file.mtime(path))
  if (is.null(go_types_seen[[key]])) {
    lines <- go_pprof("raw", path)
    pairs <- strsplit(trimws(lines[[match("Samples:", lines) + 1L]]), " +")[[1]]
    parts <- strsplit(pairs, "/", fixed = TRUE)
    go_types_seen[[key]] <- data.frame(
      type = vapply(parts, `[`, "", 1), unit = vapply(parts, `[`, "", 2)
    )
  }
  go_types_seen[[key]]
}

go_types_seen <- new.env(parent = emptyenv())

# The flags that make go tool pprof print values of `type` in the type's own
# unit, as whole numbers (a count is printed as it is).
go_value_flags <- function(type, unit) {
  c(
    paste0("-sample_index=", type),
    switch(unit,
      nanoseconds = "-unit=ns",
      bytes = "-unit=B",
      NULL
    )
  )
}

# A number as go tool pprof prints it, without its unit ("1424000000ns").
go_number <- function(text) {
  as.numeric(sub("[a-zA-Z]+$", "", text))
}

# The rows of `go tool pprof -top` with every node (no node or edge dropped):
# a data frame of `name` (as Go prints it, with " (inline)" where Go adds it),
# `flat` and `cum`, sorted by name.
go_top <- function(path, type, unit, flags = character()) {
  lines <- go_pprof("top", path, shQuote(c(
    "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0", go_value_flags(type, unit), flags
  )))
  header <- grep("^\\s*flat\\s+flat%", lines)
  if (length(header) != 1) {
    testthat::fail(paste(c("no table in go tool pprof -top:", lines), collapse = "\n"))
  }
  rows <- lines[-seq_len(header)]
  row <- "^\\s*(\\S+)\\s+\\S+\\s+\\S+\\s+(\\S+)\\s+\\S+\\s+(.*)$"
  out <- data.frame(
    name = sub(row, "\\3", rows),
    flat = go_number(sub(row, "\\1", rows)),
    cum = go_number(sub(row, "\\2", rows))
  )
  out[order(out$name, out$flat, out$cum, method = "radix"), , drop = FALSE]
}

# The samples of `go tool pprof -traces`: a data frame of `labels` (the label
# lines, joined by "\n"), `frames` (innermost first, joined by "\n") and
# `value`, one row per distinct pair of labels and frames with the values of
# its samples summed (a writer may merge samples that a verb made equal, such
# as Rprof samples whose stacks differ in hidden frames only), sorted.
go_traces <- function(path, type, unit, flags = character()) {
  lines <- go_pprof("traces", path, shQuote(c(go_value_flags(type, unit), flags)))
  separator <- "-----------+-------------------------------------------------------"
  block <- cumsum(lines == separator)
  blocks <- split(lines[lines != separator & block > 0], block[lines != separator & block > 0])
  # A frame line: the value (first frame only) right-aligned in 10 columns,
  # three spaces, the frame; a label line: "key:  values".
  frame_line <- "^\\s*(\\S*)   (\\S.*)$"
  samples <- lapply(blocks, function(b) {
    first_frame <- match(TRUE, grepl(frame_line, b) & !grepl("^\\s*\\S+:  ", b))
    frames <- b[first_frame:length(b)]
    data.frame(
      labels = paste(trimws(b[seq_len(first_frame - 1L)]), collapse = "\n"),
      frames = paste(sub(frame_line, "\\2", frames), collapse = "\n"),
      value = go_number(sub(frame_line, "\\1", frames[[1]]))
    )
  })
  out <- do.call(
    rbind,
    c(list(data.frame(labels = character(), frames = character(), value = numeric())), samples)
  )
  if (!nrow(out)) {
    return(out)
  }
  key <- paste(out$labels, out$frames, sep = "\r")
  sums <- tapply(out$value, key, sum)
  parts <- strsplit(names(sums), "\r", fixed = TRUE)
  merged <- data.frame(
    labels = vapply(parts, function(p) if (length(p) == 2) p[[1]] else "", ""),
    frames = vapply(parts, function(p) p[[length(p)]], ""),
    value = unname(as.vector(sums))
  )
  merged[order(merged$labels, merged$frames, method = "radix"), , drop = FALSE]
}

# Expects two data frames with the same rows (in order); on failure the message
# lists the rows found on one side only, a few of each.
expect_same_rows <- function(ours, theirs, label) {
  rownames(ours) <- NULL
  rownames(theirs) <- NULL
  text <- function(v) if (is.numeric(v)) format(v, scientific = FALSE, trim = TRUE) else v
  key <- function(df) do.call(paste, c(lapply(unname(as.list(df)), text), sep = " | "))
  only_ours <- setdiff(key(ours), key(theirs))
  only_theirs <- setdiff(key(theirs), key(ours))
  same <- isTRUE(all.equal(ours, theirs, check.attributes = FALSE))
  show <- function(rows) paste0("  ", gsub("\n", " < ", utils::head(rows, 8)), collapse = "\n")
  testthat::expect(same, sprintf(
    paste0(
      "%s: %d rows from the verb, %d from go tool pprof.\n",
      "Only from the verb:\n%s\nOnly from go tool pprof:\n%s"
    ),
    label, nrow(ours), nrow(theirs), show(only_ours), show(only_theirs)
  ))
  invisible(ours)
}

# Expects the pprof file `ours` to show the same -top rows and -traces as
# `original` under `flags`, for the last sample type of `original` or, with
# `types = "all"`, for each (`traces = FALSE` compares -top only).
expect_go_agrees <- function(original, ours, flags, label = paste(basename(original), flags),
                             types = c("last", "all"), traces = TRUE) {
  which_types <- match.arg(types)
  types <- go_sample_types(original)
  if (which_types == "last") types <- types[nrow(types), , drop = FALSE]
  for (i in seq_len(nrow(types))) {
    type <- types$type[[i]]
    unit <- types$unit[[i]]
    what <- paste0(label, " (", type, ")")
    expect_same_rows(
      go_top(ours, type, unit), go_top(original, type, unit, flags), paste(what, "-top")
    )
    if (traces) {
      expect_same_rows(
        go_traces(ours, type, unit), go_traces(original, type, unit, flags), paste(what, "-traces")
      )
    }
  }
}
