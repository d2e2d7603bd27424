# read_pprof() against Go's own pprof parser (github.com/google/pprof/profile):
# on every real pprof file of the tests and on mutations of them, read_pprof()
# reads a file exactly when Go does (refusing it with a profile_error, never
# another error), and then reads the same content (the dump format and what it
# compares: tests/oracle/pprof-dump/main.go). The number of mutated cases is
# PROFILE_ORACLE_CASES (default 2000; dev/test.sh sets 6000 in CI), made in
# batches by tests/oracle/pprof-mutate from the seed PROFILE_ORACLE_SEED
# (default 1; in CI the commit's, see dev/test.sh).

# One comparison: NULL when both sides agree, else what differs.
oracle_disagreement <- function(go, r) {
  if (is.null(go)) {
    return("pprof-dump printed nothing for it")
  }
  go_refuses <- length(go) == 1L && startsWith(go, "ERROR ")
  if (!is.null(r$wrong)) {
    return(paste("read_pprof() gave", r$wrong))
  }
  r_refuses <- !is.null(r$error)
  if (go_refuses != r_refuses) {
    return(if (go_refuses) {
      paste0("Go refuses (", go, "), read_pprof() reads it")
    } else {
      paste0("Go reads it, read_pprof() refuses: ", conditionMessage(r$error))
    })
  }
  if (go_refuses || identical(go, r$dump)) {
    return(NULL)
  }
  dump_difference(go, r$dump)
}

# Where two dumps (`go`, `ours`: lines) differ first, with the lines around.
dump_difference <- function(go, ours) {
  n <- max(length(go), length(ours))
  at <- which(vapply(seq_len(n), function(i) !identical(go[i], ours[i]), TRUE))[[1]]
  shown <- seq(max(1L, at - 2L), min(n, at + 2L))
  paste0(
    "the dumps differ from line ", at, " (Go ", length(go), " lines, R ", length(ours), "):\n",
    "  Go: ", paste(go[shown], collapse = "\n      "), "\n",
    "  R:  ", paste(ours[shown], collapse = "\n      ")
  )
}

test_that("read_pprof() reads exactly what Go's parser reads", {
  skip_on_cran()
  programs <- oracle_programs()
  n_cases <- oracle_case_count()
  seed <- suppressWarnings(as.integer(Sys.getenv("PROFILE_ORACLE_SEED", "1")))
  if (is.na(seed)) seed <- 1L
  dir <- tempfile("oracle")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  seeds <- oracle_seed_files(dir)

  disagreements <- list()
  kinds <- character()
  # Cases both sides read (with equal dumps) and both refuse.
  both <- c(read = 0L, refused = 0L)
  check_cases <- function(paths, labels) {
    go <- oracle_go_dumps(programs[["dump"]], paths)
    for (i in seq_along(paths)) {
      r <- oracle_r_result(paths[[i]])
      what <- oracle_disagreement(go[[paths[[i]]]], r)
      if (!is.null(what)) {
        disagreements[[length(disagreements) + 1L]] <<- paste0(labels[[i]], ": ", what)
      } else {
        outcome <- if (is.null(r$dump)) "refused" else "read"
        both[[outcome]] <<- both[[outcome]] + 1L
      }
    }
  }

  # The real files, unchanged: Go reads them all, and so must read_pprof().
  check_cases(seeds, paste("real file", basename(seeds)))
  expect_identical(both[["read"]], length(seeds))

  batch <- 2000L
  for (from in seq(0L, n_cases - 1L, by = batch)) {
    if (n_cases == 0L) break
    to <- min(n_cases, from + batch)
    cases_dir <- file.path(dir, "cases")
    cases <- oracle_mutated_cases(programs[["mutate"]], seeds, seed, from, to, cases_dir)
    kinds <- c(kinds, cases$kind)
    check_cases(cases$path, cases$label)
    unlink(cases_dir, recursive = TRUE)
  }

  n_total <- length(seeds) + n_cases
  cat(sprintf(
    paste(
      "\npprof oracle: %d cases (%d real files, %d mutations, seed %d;",
      "read by both %d, refused by both %d), %d disagreements\n"
    ),
    n_total, length(seeds), n_cases, seed, both[["read"]], both[["refused"]], length(disagreements)
  ))
  # The mutations must test both ways: a run where (nearly) everything is
  # refused, or read, would compare little.
  if (n_cases >= 100L) {
    expect_gt(both[["read"]] - length(seeds), n_cases %/% 10L)
    expect_gt(both[["refused"]], n_cases %/% 10L)
  }
  if (nzchar(Sys.getenv("PROFILE_ORACLE_KINDS"))) {
    print(table(sub("[+]gzip$", "", kinds)))
  }
  # Every disagreement, for working on them: PROFILE_ORACLE_REPORT=<file>.
  report <- Sys.getenv("PROFILE_ORACLE_REPORT")
  if (nzchar(report)) {
    writeLines(as.character(unlist(disagreements)), report)
  }
  expect(
    length(disagreements) == 0L,
    paste0(
      length(disagreements), " of ", n_total, " cases disagree with Go; the first ones:\n",
      paste(utils::head(unlist(disagreements), 5L), collapse = "\n")
    )
  )
})
