# profile_db_upgrade() (R/db-upgrade.R): a database of profile 2.1 (written
# as 2.1 wrote it, helper-db-21.R, or by 2.1 itself) is refused by appends
# and deletes, and upgraded in place with the same content; on SQLite, DuckDB
# and a PostgreSQL server started by the test run (helper-db.R).

profiles <- sample_profiles()

for (backend in c("sqlite", "postgres", "rpostgresql", "duckdb")) {
  test_that(paste0(backend, ": a 2.1 database is refused by appends and upgraded in place"), {
    con <- local_db(backend)
    x <- profiles[c(1, 4, 6, 7, 8)]
    combined <- write_db_21(con, x)
    old <- profile_db(con)
    shown <- everything_shown(old)
    expect_identical(shown, everything_shown(combined))
    before <- db_row_counts(con)
    relations <- db_relations(con)
    refused <- "profile_error_unsupported"
    expect_error(profile_db_append(con, profiles[[2]]), "profile_db_upgrade", class = refused)
    expect_error(profile_db_delete(con, 1L), "profile_db_upgrade", class = refused)
    expect_identical(db_row_counts(con), before)

    # an upgrade that fails half-way leaves the 2.1 tables as they were
    suppressMessages(trace("db_upgrade_samples",
      tracer = quote(stop("the disk is full")), where = asNamespace("profile"), print = FALSE
    ))
    expect_error(profile_db_upgrade(con), class = "profile_error_io")
    suppressMessages(untrace("db_upgrade_samples", where = asNamespace("profile")))
    expect_identical(db_row_counts(con), before)
    after <- db_relations(con)
    by_name <- function(r) r[order(r$name), ]
    expect_identical(by_name(after), by_name(relations), ignore_attr = TRUE)

    db <- profile_db_upgrade(con)
    expect_identical(db_layout(con), "2.2")
    expect_silent(validate_profile(db))
    expect_identical(everything_shown(db), shown)
    collected <- collected_tables(db)
    expected_tables <- dm::dm_get_tables(combined)
    # the tables 2.1 did not have are there, empty
    added <- setdiff(names(collected), names(expected_tables))
    expect_true(all(vapply(collected[added], nrow, 1L) == 0L))
    for (t in names(expected_tables)) {
      expect_equal(as.data.frame(collected[[t]]), as.data.frame(dm::dm_get_tables(combined)[[t]]),
        ignore_attr = TRUE, info = t
      )
    }
    # again: nothing to do
    expect_identical(everything_shown(profile_db_upgrade(con)), shown)
    db <- profile_db_append(con, profiles[[2]])
    expect_identical(everything_shown(db), everything_shown(combine_profiles(c(x, profiles[2]))))
  })
}

test_that("sqlite: a database written by profile 2.1 itself is upgraded with the same summaries", {
  path <- withr::local_tempfile(fileext = ".sqlite")
  files <- c(
    sample_path("rprof", c("1.out", "memory.out", "line.out")),
    sample_path("pprof", c("cpu.pb.gz", "heap.pb.gz"))
  )
  write_db_21_installed(path, files)
  con <- local_sqlite(path = path)
  expect_identical(db_layout(con), "2.1")
  expected <- combine_profiles(c(lapply(files[1:3], read_rprof), lapply(files[4:5], read_pprof)))
  shown <- everything_shown(profile_db(con))
  expect_identical(shown, everything_shown(expected))
  db <- profile_db_upgrade(con)
  expect_identical(everything_shown(db), shown)
  expect_silent(validate_profile(db))
})
