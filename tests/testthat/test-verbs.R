# The verbs of R/verbs.R (profile_focus(), profile_ignore(), profile_hide(),
# profile_show()): agreement with go tool pprof on real files, results computed
# independently in R, what the result keeps, and argument errors.

column_form <- function(v) rust_value(ffi_profile_column_form(v))

test_that("the verbs agree with go tool pprof on Go's profiles", {
  skip_if_no_go()
  # Function names, file names (proc.go, chan.go, main.go), the mapping's file
  # (profilesamples), parts of inlined Locations (Builder, fib), labels (cpu),
  # and every sample type of the heap profile. (Each comparison runs go tool
  # pprof four times: patterns are few.)
  cases <- list(
    "cpu.pb.gz" = c(
      "^main\\.", "runtime\\.|sync", "proc\\.go", "profilesamples$", "fib|sha256\\.block"
    ),
    "heap.pb.gz" = c("^os\\.|syscall"),
    "goroutine.pb.gz" = c("gopark", "main\\.go"),
    "mutex.pb.gz" = c("Mutex", "profilesamples$"),
    "block.pb.gz" = c("^main\\.pipeline", "chan\\.go")
  )
  expect_setequal(basename(pprof_files()), names(cases))
  for (file in names(cases)) {
    path <- sample_path("pprof", file)
    expect_verbs_agree_with_go(read_pprof(path), path, cases[[file]], file)
  }
  heap <- sample_path("pprof", "heap.pb.gz")
  expect_verbs_agree_with_go(read_pprof(heap), heap, "Builder", "heap.pb.gz", types = "all")
})

test_that("the verbs agree with go tool pprof on Rprof profiles written to pprof", {
  skip_if_no_go()
  # (patterns that do not match "[R]", the mapping write_pprof() gives R frames)
  cases <- list(
    "1.out" = c("^fib$", "sort"),
    "memory.out" = c("no such function"),
    "line.out" = c("alloc\\.R$")
  )
  for (file in names(cases)) {
    x <- read_rprof(sample_path("rprof", file))
    expect_verbs_agree_with_go(x, write_pprof_tmp(x), cases[[file]], file)
  }
  x <- read_rprof(sample_path("rprof", "memory.out"))
  expect_verbs_agree_with_go(
    x, write_pprof_tmp(x), "copy\\.modify|<GC>", "memory.out",
    types = "all"
  )
})

test_that("verbs compose as go tool pprof combines its flags", {
  skip_if_no_go()
  cpu <- sample_path("pprof", "cpu.pb.gz")
  x <- read_pprof(cpu)
  ours <- x |>
    profile_focus("main\\.") |>
    profile_hide("runtime\\.") |>
    write_pprof_tmp()
  expect_go_agrees(cpu, ours, c("-focus=main\\.", "-hide=runtime\\."))
  ours <- x |>
    profile_ignore("sha256") |>
    profile_show("main\\.|sort") |>
    write_pprof_tmp()
  expect_go_agrees(cpu, ours, c("-ignore=sha256", "-show=main\\.|sort"))
  ours <- x |>
    profile_focus("fib") |>
    profile_ignore("busy") |>
    write_pprof_tmp()
  expect_go_agrees(cpu, ours, c("-focus=fib", "-ignore=busy"))
})

# ---------------------------------------------------------------------------
# Results computed in R from the tables, with base R joins.

test_that("focus and ignore keep the samples, values and labels an R join picks", {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  frames <- frames_with_names(x)
  with_fib <- unique(frames$sample_id[grepl("fib", frames$name)])
  all_ids <- x$samples$sample_id
  expect_gt(length(with_fib), 10)
  expect_lt(length(with_fib), length(all_ids))

  for (verb in c("focus", "ignore")) {
    y <- verbs[[verb]](x, "fib")
    expect_silent(validate_profile(y))
    kept <- if (verb == "focus") all_ids[all_ids %in% with_fib] else all_ids[!all_ids %in% with_fib]
    expect_identical(y$samples$sample_id, kept)
    for (t in c("sample_values", "sample_labels", "sample_locations")) {
      expected <- x[[t]][x[[t]]$sample_id %in% kept, ]
      expect_identical(
        as.list(y[[t]]), lapply(as.list(expected), function(v) v[seq_along(v)]),
        label = paste(verb, t)
      )
    }
    unchanged <- c(
      "meta", "sources", "locations", "functions", "sample_types", "mappings", "source_comments"
    )
    for (t in unchanged) {
      expect_identical(y[[t]], x[[t]], label = paste(verb, t))
    }
  }
})

test_that("hide and show keep the frames an R filter keeps, renumbered", {
  for (path in c(sample_path("pprof", "heap.pb.gz"), sample_path("rprof", "1.out"))) {
    x <- if (grepl("\\.out$", path)) read_rprof(path) else read_pprof(path)
    frames <- frames_with_names(x)
    for (verb in c("hide", "show")) {
      pattern <- if (grepl("heap", path)) "^runtime\\.|Builder" else "^(lapply|FUN|sort.*)$"
      y <- verbs[[verb]](x, pattern)
      expect_silent(validate_profile(y))
      matched <- grepl(pattern, frames$name)
      kept <- frames[if (verb == "hide") !matched else matched, ]
      kept$depth <- stats::ave(kept$depth, kept$sample_id, FUN = seq_along)
      # samples left without frames go: the pattern removes whole locations
      expect_identical(
        y$samples$sample_id, x$samples$sample_id[x$samples$sample_id %in% kept$sample_id]
      )
      got <- frames_with_names(y)
      rownames(got) <- rownames(kept) <- NULL
      expect_identical(got, kept, label = paste(basename(path), verb))
    }
  }
})

test_that("a pattern also matches file:line (Rprof line profiling)", {
  path <- sample_path("rprof", "line.out")
  x <- read_rprof(path)
  lines <- readLines(path)
  # counted from the text: the file number of alloc.R, then the stack lines
  # where line 23 of it is a frame's position
  file_no <- sub("^#File ([0-9]+): .*$", "\\1", grep("^#File .*alloc\\.R$", lines, value = TRUE))
  stacks <- lines[!grepl("^#File |sample\\.interval=", lines)]
  at_line <- grepl(paste0("(^| )", file_no, "#23 "), stacks)
  expect_gt(sum(at_line), 5)

  focused <- profile_focus(x, "alloc\\.R:23")
  expect_identical(nrow(focused$samples), sum(at_line))
  expect_identical(nrow(profile_ignore(x, "alloc\\.R:23")$samples), sum(!at_line))
  hidden <- profile_hide(x, "alloc\\.R:23$")
  expect_identical(
    nrow(x$sample_locations) - nrow(hidden$sample_locations),
    sum(lengths(regmatches(stacks, gregexpr(paste0("(^| )", file_no, "#23 "), stacks))))
  )
  expect_silent(validate_profile(hidden))
  # ":23" alone is no file name: nothing but file:line texts have it
  expect_identical(nrow(profile_focus(x, ":23$")$samples), sum(grepl("[0-9]+#23 ", stacks)))
})

# ---------------------------------------------------------------------------
# What the result is and keeps

test_that("the result keeps extension tables, tables of one's own and compact columns", {
  x <- read_rprof(sample_path("rprof", "memory.out"))
  x <- dm::dm(x, notes = tibble::tibble(note = "mine"))
  sources <- x$sources
  y <- x |>
    profile_hide("^c$") |>
    profile_focus("memory_round")
  expect_gt(nrow(y$samples), 10)
  expect_silent(validate_profile(y))
  expect_identical(y$notes, x$notes)
  expect_identical(y$sources, sources)
  # (and the whole profile's totals, "Percentages after a verb" in ?profile_summary)
  expect_identical(
    names(dm::dm_get_tables(y)), c(names(dm::dm_get_tables(x)), "unfiltered_totals")
  )
  expect_identical(dm::dm_get_all_pks(y), dm::dm_get_all_pks(x))
  fks <- dm::dm_get_all_fks(y)
  expect_identical(fks[fks$child_table != "unfiltered_totals", ], dm::dm_get_all_fks(x))
  expect_identical(column_form(y$sample_locations$sample_id), "runs")
  expect_identical(column_form(y$sample_locations$depth), "run_seq")
  expect_identical(column_form(y$sample_values$type), "cycle")
  # ... and the input's compact columns were only read
  expect_identical(column_form(x$sample_locations$depth), "run_seq")
  expect_identical(column_form(x$sample_values$type), "cycle")
  # every memory sample keeps its six values
  expect_identical(nrow(y$sample_values), 6L * nrow(y$samples))

  withr::local_options(profile.compact = FALSE)
  expect_identical(column_form(profile_hide(x, "^c$")$sample_locations$depth), "none")
})

test_that("columns of one's own: kept in unchanged tables, not in per-sample ones", {
  x <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  tables <- dm::dm_get_tables(x)
  tables$functions$package <- sub("\\..*$", "", tables$functions$name)
  tables$samples$thread <- seq_len(nrow(tables$samples))
  x <- profile:::dm_from_v2_tables(tables)
  y <- profile_focus(x, "main\\.")
  expect_identical(y$functions$package, tables$functions$package)
  expect_false("thread" %in% names(y$samples))
  expect_identical(names(y$sample_labels), names(x$sample_labels))
})

test_that("a pattern that matches nothing, or everything", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  quietly_matching({
    expect_identical(nrow(profile_focus(x, "no such function")$samples), 0L)
    expect_identical(nrow(profile_ignore(x, "no such function")$samples), nrow(x$samples))
    expect_identical(
      as.list(profile_hide(x, "no such function")$sample_locations), as.list(x$sample_locations)
    )
  })
  everything <- profile_hide(x, ".")
  expect_identical(nrow(everything$samples), 0L)
  expect_silent(validate_profile(everything))
  expect_identical(nrow(profile_show(x, ".")$sample_locations), nrow(x$sample_locations))
})

test_that("v1 profiles are converted, and results are written by both writers", {
  path <- sample_path("rprof", "1.out")
  v1 <- read_rprof(path, version = "1.0")
  y <- profile_focus(v1, "^fib$")
  expect_s3_class(y, "dm")
  expect_identical(
    as.list(y$sample_locations),
    as.list(profile_focus(profile_v2_from_v1(v1), "^fib$")$sample_locations)
  )
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(profile_hide(read_rprof(path), "^fib$"), out)
  text <- readLines(out)
  expect_false(any(grepl('"fib"', text, fixed = TRUE)))
  expect_identical(sum(!grepl("^#File |sample\\.interval=", text)), nrow(read_rprof(path)$samples))
})

test_that("bad arguments are argument errors a user understands", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  for (verb in verbs) {
    expect_error(verb(x, "("), class = "profile_error_argument")
    expect_error(verb(x, ""), class = "profile_error_argument")
    expect_error(verb(x, NA_character_), class = "profile_error_argument")
    expect_error(verb(x, c("a", "b")), class = "profile_error_argument")
    expect_error(verb(x, 1), class = "profile_error_argument")
    expect_error(verb(mtcars, "a"), class = "profile_error_argument")
  }
  err <- expect_error(profile_focus(x, "fib("), class = "profile_error_argument")
  expect_match(conditionMessage(err), "not a regular expression that Go")
  expect_match(conditionMessage(err), "missing closing )", fixed = TRUE)
  err <- expect_error(profile_hide(list(), "a"), class = "profile_error_argument")
  expect_match(conditionMessage(err), "must be a profile")
  expect_identical(conditionCall(err)[[1]], quote(profile_hide))
})

test_that("a broken profile is an error of kind invalid", {
  tables <- dm::dm_get_tables(read_rprof(sample_path("rprof", "1.out")))
  tables$samples$sample_id[2] <- tables$samples$sample_id[1]
  x <- profile:::dm_from_v2_tables(tables)
  err <- expect_error(profile_focus(x, "fib"), class = "profile_error_invalid")
  expect_match(conditionMessage(err), "appears more than once")
  tables <- dm::dm_get_tables(read_rprof(sample_path("rprof", "1.out")))
  tables$sample_locations$depth[1] <- 99L
  err <- expect_error(
    profile_hide(profile:::dm_from_v2_tables(tables), "fib"),
    class = "profile_error_invalid"
  )
  expect_match(conditionMessage(err), "depths of a sample must run 1..n")
})
