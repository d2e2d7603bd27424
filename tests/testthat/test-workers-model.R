# A recording of parallel code through what every profile goes through: its
# process columns of `sources` (process_id, host_name, process_role) and its
# table `tasks` in validate_profile(), combine_profiles() (ids remapped), a
# database (SQLite and a real PostgreSQL server: append, read back, delete)
# and print(). The fixture is a real recording (small_parallel_recording(),
# helper-workers.R).

# The tasks of a profile with the process of each (its process id and role),
# in a stable order: what the ids stand for, not the ids.
tasks_by_process <- function(tables) {
  tasks <- as.data.frame(dplyr::collect(tables$tasks))
  sources <- as.data.frame(dplyr::collect(tables$sources))
  at <- match(tasks$source_id, sources$source_id)
  out <- data.frame(
    process_id = sources$process_id[at], process_role = sources$process_role[at],
    start_time = tasks$start_time, end_time = tasks$end_time, status = tasks$status
  )
  out[order(out$process_id, out$start_time), , drop = FALSE]
}

# A summary's rows in the order of their first column (rows of equal value
# have no order of their own), its values without the percentages (a
# recording's are of its total before its samples outside `expr` were
# dropped, which a database does not keep).
summary_by_key <- function(summary) {
  out <- as.data.frame(summary)
  out <- out[order(out[[1L]]), !grepl("_pct$", names(out)), drop = FALSE]
  rownames(out) <- NULL
  out
}

test_that("the processes and tasks of a recording pass validation and combine_profiles()", {
  skip_on_os("windows")
  x <- small_parallel_recording()
  expect_silent(validate_profile(x))
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  expect_identical(sort(tables$sources$process_role), c("main", "worker", "worker"))
  expect_identical(nrow(tables$tasks), 2L)

  # with itself: every source twice, each task twice, each copy pointing to
  # the copy of its own process's source
  y <- combine_profiles(x, x, merge = FALSE)
  expect_silent(validate_profile(y))
  ty <- dm::dm_get_tables(y, keyed = FALSE)
  expect_identical(nrow(ty$sources), 6L)
  expect_identical(anyDuplicated(ty$tasks$source_id), 0L)
  expect_true(all(ty$tasks$source_id %in% ty$sources$source_id))
  once <- tasks_by_process(tables)
  twice <- once[rep(seq_len(nrow(once)), each = 2L), , drop = FALSE]
  expect_equal(tasks_by_process(ty), twice, ignore_attr = TRUE)

  # with a profile of a reader (no processes, no tasks): its source has none
  other <- read_rprof(sample_path("rprof", "1.out"))
  z <- combine_profiles(other, x)
  expect_silent(validate_profile(z))
  tz <- dm::dm_get_tables(z, keyed = FALSE)
  expect_true(is.na(tz$sources$process_id[[1L]]))
  expect_true(is.na(tz$sources$process_role[[1L]]))
  expect_equal(tasks_by_process(tz), once, ignore_attr = TRUE)
  # the process columns of the recording's sources, as they were
  expect_identical(
    tz$sources[-1L, c("process_id", "host_name", "process_role")],
    tables$sources[c("process_id", "host_name", "process_role")]
  )
})

for (backend in c("sqlite", "postgres")) {
  test_that(paste("a database keeps the processes and tasks of a recording:", backend), {
    skip_on_os("windows")
    con <- local_db(backend)
    x <- small_parallel_recording()
    tables <- dm::dm_get_tables(x, keyed = FALSE)
    profile_db_append(con, read_rprof(sample_path("rprof", "1.out")))
    db <- profile_db_append(con, x)
    expect_silent(validate_profile(db))
    back <- collected_tables(db)
    sources <- as.data.frame(back$sources)
    recorded <- sources[!is.na(sources$process_id), c("process_id", "host_name", "process_role")]
    expect_identical(
      recorded[order(recorded$process_id), , drop = FALSE],
      as.data.frame(tables$sources[order(tables$sources$process_id), names(recorded)]),
      ignore_attr = TRUE
    )
    expect_equal(tasks_by_process(back), tasks_by_process(tables), ignore_attr = TRUE)
    # the summaries count every process as the profile in memory does
    both <- combine_profiles(read_rprof(sample_path("rprof", "1.out")), x)
    for (by in c("function", "source")) {
      expect_equal(
        summary_by_key(profile_summary(db, by = by, n = Inf)),
        summary_by_key(profile_summary(both, by = by, n = Inf)),
        ignore_attr = TRUE
      )
    }
    # deleting the recording's sources deletes its tasks
    profile_db_delete(con, sources$source_id[!is.na(sources$process_id)])
    expect_identical(db_row_counts(con)[["tasks"]], 0)
    expect_false("tasks" %in% names(dm::dm_get_tables(profile_db(con))))
    expect_silent(validate_profile(profile_db(con)))
  })
}

for (backend in c("sqlite", "postgres")) {
  test_that(paste("a database made before the table tasks takes a recording:", backend), {
    skip_on_os("windows")
    con <- local_db(backend)
    profile_db_append(con, read_rprof(sample_path("rprof", "1.out")))
    # the database as a version without the processes and tasks made it
    DBI::dbExecute(con, "DROP TABLE tasks")
    for (column in c("process_id", "host_name", "process_role")) {
      DBI::dbExecute(con, sprintf("ALTER TABLE sources DROP COLUMN %s", column))
    }
    x <- small_parallel_recording()
    db <- profile_db_append(con, x)
    expect_silent(validate_profile(db))
    back <- collected_tables(db)
    expect_equal(
      tasks_by_process(back), tasks_by_process(dm::dm_get_tables(x)),
      ignore_attr = TRUE
    )
    expect_identical(sum(!is.na(back$sources$process_id)), 3L)
  })
}

test_that("print() names the process of each source of a recording", {
  skip_on_os("windows")
  x <- small_parallel_recording()
  sources <- dm::dm_get_tables(x)$sources
  text <- format(x)
  main <- sources$process_id[sources$process_role == "main"]
  expect_match(text, sprintf("main process %d", main), fixed = TRUE, all = FALSE)
  for (pid in sources$process_id[sources$process_role == "worker"]) {
    expect_match(text, sprintf("worker process %d", pid), fixed = TRUE, all = FALSE)
  }
  expect_no_match(format(read_rprof(sample_path("rprof", "1.out"))), "process")
})
