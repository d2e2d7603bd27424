# The SQL layer of the database code (R/db-sql.R): inserts of rows that
# refer to one another, transactions that leave the database as it was when
# an append fails, is interrupted or loses its connection, and the locks
# that let several processes append at once; on SQLite, DuckDB and a
# PostgreSQL server started by the test run (helper-db.R).

profiles <- sample_profiles()

# Runs `tracer` at the start of each insert of rows by profile_db_append()
# (where `table` names the table) until untrace_insert() or the end of the
# test.
trace_insert <- function(tracer, env = parent.frame()) {
  suppressMessages(
    trace("db_insert_rows", tracer = tracer, where = asNamespace("profile"), print = FALSE)
  )
  withr::defer(untrace_insert(), envir = env)
}

untrace_insert <- function() {
  namespace <- asNamespace("profile")
  if (inherits(get("db_insert_rows", envir = namespace), "functionWithTrace")) {
    suppressMessages(untrace("db_insert_rows", where = namespace))
  }
}

test_that("rows of a table that refers to itself are inserted after those they refer to", {
  # chains of inlined locations in no order: 7 in 5 in 3 in 9; 1 alone; 4 in
  # a location stored before (100); 11 and 12 in each other (a cycle)
  rows <- data.frame(
    location_id = c(5L, 3L, 9L, 1L, 7L, 4L, 11L, 12L),
    inlined_into = c(3L, 9L, NA, NA, 5L, 100L, 12L, 11L)
  )
  levels <- db_self_reference_levels("locations", rows)
  expect_setequal(unlist(levels), seq_len(nrow(rows)))
  level_of <- integer(nrow(rows))
  level_of[unlist(levels)] <- rep(seq_along(levels), lengths(levels))
  parent <- match(rows$inlined_into, rows$location_id)
  in_chain <- !is.na(parent) & !rows$location_id %in% c(11L, 12L)
  expect_true(all(level_of[in_chain] > level_of[parent[in_chain]]))
  expect_identical(rows$location_id[levels[[1]]], c(9L, 1L, 4L))
  # the cycle last, for the database to refuse
  expect_identical(rows$location_id[levels[[length(levels)]]], c(11L, 12L))
  expect_identical(
    expect_silent(db_self_reference_levels("locations", rows[7:8, ])), list(1:2)
  )
  # a table without a key into itself, or no reference among the rows: one insert
  expect_identical(db_self_reference_levels("sources", rows), list(seq_len(8L)))
  expect_identical(
    db_self_reference_levels("locations", rows[c(3, 4, 6), ]), list(1:3)
  )
})

for (backend in db_backends) {
  test_that(paste0(backend, ": an append that fails half-way leaves the database as it was"), {
    con <- local_db(backend)
    db <- profile_db_append(con, profiles[[1]])
    before <- db_row_counts(con)

    # an invalid profile: refused before anything is written
    bad <- dm::dm_get_tables(profiles[[6]])
    bad$sample_locations$location_id[[5]] <- 123456L
    bad <- dm::dm_mutate_tbl(profiles[[6]], sample_locations = bad$sample_locations)
    expect_error(profile_db_append(con, profiles[[2]], bad), class = "profile_error_invalid")
    expect_identical(db_row_counts(con), before)

    # the database refuses a row after the first tables were written
    trace_insert(quote(if (table == "profile_samples") stop("the disk is full")))
    err <- expect_error(profile_db_append(con, profiles[[6]]), class = "profile_error_io")
    untrace_insert()
    expect_match(conditionMessage(err$parent), "the disk is full")
    expect_identical(db_row_counts(con), before)

    # an interrupt
    trace_insert(quote(if (table == "profile_stack_frames") rlang::interrupt()))
    expect_error(profile_db_append(con, profiles[[6]]), "interrupted", class = "profile_error_io")
    untrace_insert()
    expect_identical(db_row_counts(con), before)

    # and the database still takes appends
    profile_db_append(con, profiles[[6]])
    expect_equal(db_row_counts(con)[["sources"]], before[["sources"]] + 1)
  })
}

test_that("sqlite: a connection closed in the middle of an append leaves the file as it was", {
  path <- withr::local_tempfile(fileext = ".sqlite")
  con <- local_sqlite(path = path)
  profile_db_append(con, profiles[[1]])
  before <- db_row_counts(con)
  trace_insert(quote(if (table == "profile_samples") DBI::dbDisconnect(con)))
  expect_error(suppressWarnings(profile_db_append(con, profiles[[2]])), class = "profile_error")
  untrace_insert()
  again <- DBI::dbConnect(RSQLite::SQLite(), path)
  withr::defer(DBI::dbDisconnect(again))
  expect_identical(db_row_counts(again), before)
})

test_that("postgres: a backend killed in the middle of an append leaves the database as it was", {
  con <- local_db("postgres")
  profile_db_append(con, profiles[[1]])
  before <- db_row_counts(con)
  other <- postgres_connect(
    postgres_cluster(), DBI::dbGetQuery(con, "SELECT current_database() AS d")$d
  )
  withr::defer(DBI::dbDisconnect(other))
  pid <- DBI::dbGetQuery(con, "SELECT pg_backend_pid() AS pid")$pid
  kill <- substitute(
    if (table == "profile_samples") {
      DBI::dbGetQuery(OTHER, sprintf("SELECT pg_terminate_backend(%d)", PID))
    },
    list(OTHER = other, PID = pid)
  )
  trace_insert(kill)
  err <- expect_error(
    suppressWarnings(profile_db_append(con, profiles[[2]])),
    class = "profile_error_io"
  )
  untrace_insert()
  expect_match(conditionMessage(err$parent), "terminating connection")
  expect_identical(db_row_counts(other), before)
})

# Two R processes append to one database at the same time, `n` appends each.
concurrent_appends <- function(cluster, dbname, drivers, n) {
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    "args <- commandArgs(trailingOnly = TRUE)",
    "suppressPackageStartupMessages(library(profile))",
    "con <- if (args[[3]] == 'RPostgreSQL') {",
    "  DBI::dbConnect(RPostgreSQL::PostgreSQL(), host = '127.0.0.1', port = as.integer(args[[1]]),",
    "    user = 'postgres', dbname = args[[2]])",
    "} else {",
    "  Sys.setenv(TZ = 'UTC')",
    "  DBI::dbConnect(RPostgres::Postgres(), host = '127.0.0.1', port = as.integer(args[[1]]),",
    "    user = 'postgres', dbname = args[[2]], timezone = 'UTC', timezone_out = 'UTC')",
    "}",
    "files <- args[-(1:4)]",
    "for (i in seq_len(as.integer(args[[4]]))) {",
    "  f <- files[[(i - 1) %% length(files) + 1]]",
    "  x <- if (grepl('[.]pb', f)) read_pprof(f) else read_rprof(f)",
    "  profile_db_append(con, x)",
    "}",
    "DBI::dbDisconnect(con)"
  ), script)
  files <- list(
    sample_path("rprof", c("1.out", "memory.out", "gc.out")),
    sample_path("pprof", c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz"))
  )
  # the library of the profile package under test first
  libs <- paste(c(dirname(find.package("profile")), .libPaths()), collapse = .Platform$path.sep)
  processes <- lapply(seq_along(drivers), function(i) {
    withr::with_envvar(c(R_LIBS = libs), processx::process$new(
      file.path(R.home("bin"), "Rscript"),
      c(script, cluster$port, dbname, drivers[[i]], n, files[[i]]),
      stdout = "|", stderr = "2>&1"
    ))
  })
  for (p in processes) p$wait(timeout = 300000)
  lapply(processes, function(p) list(status = p$get_exit_status(), output = p$read_all_output()))
}

for (drivers in list(c("RPostgres", "RPostgres"), c("RPostgres", "RPostgreSQL"))) {
  label <- paste(drivers, collapse = " and ")
  test_that(paste0("postgres: two processes appending at once (", label, ")"), {
    skip_if_not_installed("processx")
    skip_if_not_installed(drivers[[2]])
    con <- local_db("postgres")
    dbname <- DBI::dbGetQuery(con, "SELECT current_database() AS d")$d
    n <- 6L
    results <- concurrent_appends(postgres_cluster(), dbname, drivers, n)
    for (r in results) expect_identical(r$status, 0L, info = r$output)

    db <- profile_db(con)
    sources <- collected_tables(db)$sources
    expect_identical(sort(sources$source_id), seq_len(2L * n))
    # no lost rows: each process's files, n / 3 times each
    rprof <- lapply(sample_path("rprof", c("1.out", "memory.out", "gc.out")), read_rprof)
    go_files <- sample_path("pprof", c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz"))
    pprof <- lapply(go_files, read_pprof)
    expected <- combine_profiles(c(rep(rprof, n / 3), rep(pprof, n / 3)))
    counts <- db_row_counts(con)
    expect_equal(counts[["samples"]], nrow(dm::dm_get_tables(expected)$samples))
    expect_equal(counts[["sample_locations"]], nrow(dm::dm_get_tables(expected)$sample_locations))
    expect_equal(counts[["sample_values"]], nrow(dm::dm_get_tables(expected)$sample_values))
    ids <- DBI::dbGetQuery(con, "SELECT sample_id FROM samples")$sample_id
    expect_false(anyDuplicated(ids) > 0)
    stacks <- DBI::dbGetQuery(con, "SELECT frames FROM profile_stacks")$frames
    expect_false(anyDuplicated(stacks) > 0)
    expect_silent(validate_profile(db))
    expect_identical(everything_shown(db), everything_shown(expected))
  })
}
