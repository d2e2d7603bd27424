# profile_summary() on the real sample files, against the tools' own numbers:
# utils::summaryRprof() for Rprof files and `go tool pprof -top` for pprof files.

# summaryRprof() splits lines at every space, so a name with a space
# (`"slow sum"`, `"x[["b c"]]"`) becomes tokens that are not names. It reads a
# copy of the file whose names have their spaces replaced by "_"; line numbers
# and counts are untouched, and names compare after the same replacement.
rprof_for_summary_rprof <- function(path) {
  lines <- readLines(path)
  stack_line <- !startsWith(lines, "#File ") & !grepl("sample.interval=", lines, fixed = TRUE)
  # a space that separates tokens is followed by a quoted name, a N#L reference
  # or the end of the line
  lines[stack_line] <- gsub(' (?!"|[0-9]+#[0-9]+( |$)|$)', "_", lines[stack_line], perl = TRUE)
  copy <- tempfile(fileext = ".out")
  writeLines(lines, copy)
  copy
}

# summaryRprof()'s by.total as sample counts.
rprof_tool_counts <- function(path, ...) {
  s <- utils::summaryRprof(rprof_for_summary_rprof(path), ...)
  by_total <- s$by.total
  tibble::tibble(
    name = gsub('^"|"$', "", rownames(by_total)),
    self = round(by_total$self.time / s$sample.interval),
    total = round(by_total$total.time / s$sample.interval),
    mem_total = if (is.null(by_total$mem.total)) NA_real_ else as.numeric(by_total$mem.total)
  )
}

# incomplete.out is left out: its last line is cut in the middle of a name, which
# summaryRprof() counts as a name and read_rprof() drops (as profile 1.0.x did).
single_session_rprof <- c("1.out", "gc.out", "line.out", "memory.out", "all.out")

test_that("self and total per function agree with summaryRprof()", {
  for (file in single_session_rprof) {
    path <- sample_path("rprof", file)
    # counts of ticks (the default, time, is checked in test-oracle-exact-answers.R)
    ours <- profile_summary(read_rprof(path), type = "samples", n = Inf)
    ours$name <- gsub(" ", "_", ours$name)
    expect_false(anyDuplicated(ours$name) > 0)
    tool <- rprof_tool_counts(path)
    expect_setequal(ours$name, tool$name)
    i <- match(tool$name, ours$name)
    expect_equal(ours$self[i], tool$self, label = paste(file, "self"))
    expect_equal(ours$total[i], tool$total, label = paste(file, "total"))
    expect_gt(nrow(tool), 20)
  }
})

test_that("alloc_size totals agree with summaryRprof(memory = 'both')", {
  for (file in c("memory.out", "all.out")) {
    path <- sample_path("rprof", file)
    ours <- profile_summary(read_rprof(path), type = "alloc_size", n = Inf)
    expect_identical(attr(ours, "unit"), "bytes")
    ours$name <- gsub(" ", "_", ours$name)
    tool <- rprof_tool_counts(path, memory = "both")
    i <- match(tool$name, ours$name)
    # summaryRprof() rounds to 0.1 MiB; functions that allocated nothing have no row of ours
    expect_equal(
      round(ifelse(is.na(i), 0, ours$total[i]) / 1048576, 1), tool$mem_total,
      label = file
    )
    expect_gt(sum(tool$mem_total), 1)
  }
})

test_that("self and total per line agree with summaryRprof(lines = 'show')", {
  for (file in c("line.out", "all.out", "toplevel.out")) {
    path <- sample_path("rprof", file)
    ours <- profile_summary(read_rprof(path), by = "line", type = "samples", n = Inf)
    expect_named(ours, c("filename", "line", "self", "self_pct", "total", "total_pct"))
    expect_true(all(ours$line > 0L))
    # summaryRprof() shows base names of the files
    expect_false(anyDuplicated(basename(unique(ours$filename))) > 0)
    key <- paste0(basename(ours$filename), "#", ours$line)
    s <- utils::summaryRprof(rprof_for_summary_rprof(path), lines = "show")
    tool <- s$by.total[rownames(s$by.total) != "<no location>", ]
    expect_setequal(key, rownames(tool))
    i <- match(rownames(tool), key)
    expect_equal(
      ours$total[i], round(tool$total.time / s$sample.interval),
      label = paste(file, "total")
    )
    expect_equal(
      ours$self[i], round(tool$self.time / s$sample.interval),
      label = paste(file, "self")
    )
    expect_gt(nrow(tool), 10)
  }
})

test_that(paste(
  "the top level is a frame: summaryRprof() counts its lines, and its ticks without a",
  "function"
), {
  path <- sample_path("rprof", "toplevel.out")
  x <- expect_silent(read_rprof(path))
  ours <- profile_summary(x, type = "samples", n = Inf)
  tool <- rprof_tool_counts(path)
  # Ticks of top-level code that runs no function: summaryRprof() (lines
  # hidden) has "<no location>" where our stacks have the top level alone.
  top <- ours[ours$name == "<top level>", ]
  no_location <- tool[tool$name == "<no location>", ]
  expect_gt(no_location$self, 10)
  expect_identical(top$self, no_location$self)
  # Every sample of this file has the top level as its outermost frame.
  expect_identical(top$total, attr(ours, "grand_total"))
  # The other functions are summaryRprof()'s.
  ours <- ours[ours$name != "<top level>", ]
  tool <- tool[tool$name != "<no location>", ]
  ours$name <- gsub(" ", "_", ours$name)
  expect_setequal(ours$name, tool$name)
  i <- match(tool$name, ours$name)
  expect_equal(ours$self[i], tool$self)
  expect_equal(ours$total[i], tool$total)
  # By line, the top level's lines are rows (in the console's file, which has
  # no name), as summaryRprof(lines = "show") has them (see above).
  t <- dm::dm_get_tables(x)
  top_level <- t$functions$function_id[t$functions$name == "<top level>"]
  top_level_lines <- t$locations$line[t$locations$function_id %in% top_level]
  by_line <- profile_summary(x, by = "line", n = Inf)
  expect_gte(length(top_level_lines), 2)
  expect_true(all(top_level_lines %in% by_line$line[by_line$filename == ""]))
})

test_that("summary() of a v1 object agrees with summaryRprof()", {
  path <- sample_path("rprof", "1.out")
  v1 <- read_rprof(path, version = "1.0")
  ours <- summary(v1, n = Inf)
  tool <- rprof_tool_counts(path)
  # v1 names replace dots (`my.fun` is `my_fun`); its system_name keeps them
  system_name <- v1$functions$system_name[match(ours$name, v1$functions$name)]
  system_name <- gsub(" ", "_", system_name)
  i <- match(tool$name, system_name)
  expect_false(anyNA(i))
  expect_equal(ours$self[i], tool$self)
  expect_equal(ours$total[i], tool$total)
})

# `go tool pprof -top` as a tibble: label (name, "name file:line" or file), flat, cum
# and the total, exact (in the base unit of the type).
pprof_top <- function(path, type, unit, granularity = NULL) {
  unit_flag <- switch(unit,
    nanoseconds = "-unit=ns",
    bytes = "-unit=B",
    NULL
  )
  out <- system2("go", c(
    "tool", "pprof", "-top", granularity, "-nodecount=1000000", "-nodefraction=0",
    "-edgefraction=0", paste0("-sample_index=", type), unit_flag, shQuote(path)
  ), stdout = TRUE, stderr = FALSE)
  total_line <- grep("Showing nodes accounting for", out, value = TRUE)
  header <- grep("^\\s*flat\\s+flat%", out)
  rows <- out[-seq_len(header)]
  number <- "(-?[0-9.]+)[a-zA-Z]*"
  pattern <- paste0("^\\s*", number, "\\s+\\S+\\s+\\S+\\s+", number, "\\s+\\S+\\s+(.*)$")
  label <- sub(" \\((partial-)?inline\\)$", "", sub(pattern, "\\3", rows))
  list(
    rows = tibble::tibble(
      label = label,
      flat = as.numeric(sub(pattern, "\\1", rows)),
      cum = as.numeric(sub(pattern, "\\2", rows))
    ),
    grand_total = as.numeric(sub(paste0(".* of ", number, " total.*"), "\\1", total_line))
  )
}

test_that("self and total agree with go tool pprof -top, for every sample type", {
  skip_if(Sys.which("go") == "", "go is not installed")
  files <- list.files(sample_path("pprof"), pattern = "\\.pb\\.gz$", full.names = TRUE)
  expect_gte(length(files), 5)
  for (path in files) {
    x <- read_pprof(path)
    types <- unique(dm::dm_get_tables(x)$sample_values[c("type", "unit")])
    for (i in seq_len(nrow(types))) {
      what <- paste(basename(path), types$type[[i]])
      ours <- profile_summary(x, type = types$type[[i]], n = Inf)
      tool <- pprof_top(path, types$type[[i]], types$unit[[i]])
      expect_equal(attr(ours, "grand_total"), tool$grand_total, label = what)
      rows <- tool$rows[tool$rows$flat != 0 | tool$rows$cum != 0, ]
      expect_gt(nrow(rows), 1)
      expect_setequal(ours$name, rows$label)
      j <- match(rows$label, ours$name)
      expect_equal(ours$self[j], rows$flat, label = paste(what, "flat"))
      expect_equal(ours$total[j], rows$cum, label = paste(what, "cum"))
    }
  }
})

test_that("by location and by source agree with go tool pprof -top -lines / -files", {
  skip_if(Sys.which("go") == "", "go is not installed")
  for (file in c("cpu.pb.gz", "heap.pb.gz")) {
    path <- sample_path("pprof", file)
    x <- read_pprof(path)
    type <- if (file == "cpu.pb.gz") "cpu" else "alloc_space"
    unit <- if (file == "cpu.pb.gz") "nanoseconds" else "bytes"

    ours <- profile_summary(x, type = type, by = "location", n = Inf)
    tool <- pprof_top(path, type, unit, "-lines")$rows
    tool <- tool[tool$flat != 0 | tool$cum != 0, ]
    label <- paste0(ours$name, " ", ours$filename, ":", ours$line)
    expect_setequal(label, tool$label)
    j <- match(tool$label, label)
    expect_equal(ours$self[j], tool$flat, label = paste(file, "lines flat"))
    expect_equal(ours$total[j], tool$cum, label = paste(file, "lines cum"))

    ours <- profile_summary(x, type = type, by = "source", n = Inf)
    tool <- pprof_top(path, type, unit, "-files")$rows
    tool <- tool[tool$flat != 0 | tool$cum != 0, ]
    expect_setequal(ours$filename, tool$label)
    j <- match(tool$label, ours$filename)
    expect_equal(ours$self[j], tool$flat, label = paste(file, "files flat"))
    expect_equal(ours$total[j], tool$cum, label = paste(file, "files cum"))
  }
})

test_that("the default sample type is the source's, else the last type", {
  x <- read_rprof(sample_path("rprof", "memory.out"))
  expect_identical(dm::dm_get_tables(x)$sources$default_sample_type, "samples")
  # Rprof ticks are shown as the time they stand for (see "Time" in
  # ?profile_summary); the counts on request
  expect_identical(attr(profile_summary(x), "sample_type"), "time")
  expect_identical(attr(profile_summary(x, type = "samples"), "sample_type"), "samples")
  err <- expect_error(
    profile_summary(x, type = "small_vector_heap"),
    class = "profile_error_argument"
  )
  expect_match(conditionMessage(err), "alloc_size")
  cpu <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  tables <- dm::dm_get_tables(cpu)
  default <- tables$sources$default_sample_type
  expected <- if (!is.na(default)) default else utils::tail(tables$sample_types$type, 1)
  expect_identical(attr(profile_summary(cpu), "sample_type"), expected)
})

# The sample type and the total `go tool pprof -top` shows when no type is asked
# for: the `Type:` line of its header, and its total in that type's base unit.
go_default_top <- function(path) {
  header <- go_pprof("top", path, "-nodecount=1")
  type <- sub("^Type: ", "", grep("^Type: ", header, value = TRUE))
  units <- pprof_value_types(path)
  list(type = type, total = pprof_top(path, type, units$unit[units$type == type])$grand_total)
}

# The sample types of a pprof file, from `go tool pprof -raw`.
pprof_value_types <- function(path) {
  types <- parse_pprof_raw(go_pprof("raw", path))$types
  tibble::tibble(type = sub("/.*$", "", types), unit = sub("^.*/", "", types))
}

test_that("with no type asked for, the type and total are those go tool pprof shows", {
  skip_if(Sys.which("go") == "", "go is not installed")
  files <- list.files(sample_path("pprof"), pattern = "\\.pb\\.gz$", full.names = TRUE)
  expect_setequal(
    basename(files), c("block.pb.gz", "cpu.pb.gz", "goroutine.pb.gz", "heap.pb.gz", "mutex.pb.gz")
  )
  shown <- character()
  for (path in files) {
    what <- basename(path)
    x <- read_pprof(path)
    tool <- go_default_top(path)
    shown[[what]] <- tool$type
    summary <- profile_summary(x, n = Inf)
    expect_identical(attr(summary, "sample_type"), tool$type, label = what)
    expect_equal(attr(summary, "grand_total"), tool$total, label = what)
    # The flame graph and folded stacks choose the same type.
    grDevices::pdf(NULL)
    frames <- profile_flamegraph(x, min_width = 0)
    grDevices::dev.off()
    expect_equal(frames$total[frames$depth == 0L], tool$total, label = what)
    folded <- withr::local_tempfile(fileext = ".folded")
    write_folded(x, folded)
    values <- as.numeric(sub("^.* ", "", readLines(folded)))
    expect_equal(sum(values), tool$total, label = what)
  }
  # Go's heap profile shows in-use space, its last type, not the first.
  expect_identical(shown[["heap.pb.gz"]], "inuse_space")
  expect_identical(shown[["cpu.pb.gz"]], "cpu")

  # Rprof profiles written to pprof: go tool pprof shows their samples, which
  # their summaries show on request (by default they show the time, which go
  # tool pprof shows with -sample_index=cpu).
  for (file in c("1.out", "memory.out", "toplevel.out")) {
    x <- read_rprof(sample_path("rprof", file))
    path <- withr::local_tempfile(fileext = ".pb.gz")
    write_pprof(x, path)
    tool <- go_default_top(path)
    summary <- profile_summary(x, type = "samples")
    expect_identical(tool$type, "samples", label = file)
    expect_identical(attr(summary, "sample_type"), tool$type, label = file)
    expect_equal(attr(summary, "grand_total"), tool$total, label = file)
    expect_equal(tool$total, length(rprof_stack_lines(sample_path("rprof", file))), label = file)
  }
  # The top level is a frame for go tool pprof too, with our self and total.
  x <- read_rprof(sample_path("rprof", "toplevel.out"))
  path <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(x, path)
  top <- pprof_top(path, "samples", "count")$rows
  ours <- profile_summary(x, type = "samples", n = Inf)
  expect_identical(top$flat[top$label == "<top level>"], ours$self[ours$name == "<top level>"])
  expect_identical(top$cum[top$label == "<top level>"], ours$total[ours$name == "<top level>"])
})
