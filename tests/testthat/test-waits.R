# profile_record() of parallel code keeps the main process's waits (the
# table `waits`, R/waits.R), judged by Sys.time() around the parallel call
# inside the recorded code and by the workers' tasks.

test_that("a recording of parallel code keeps the main process's wait for its workers", {
  r <- local_waiting_recording()
  tables <- dm::dm_get_tables(r$x)
  sources <- tables$sources
  main <- sources$source_id[sources$process_role == "main"]
  waits <- tables$waits
  expect_true(all(waits$source_id == main))
  # the wait that the span of the parallel call holds: within 50 ms of it
  long <- long_wait(waits$start_time, waits$end_time, r)
  expect_identical(nrow(long), 1L)
  expect_within(long$start, r$start, r$tolerance)
  expect_within(long$end, r$end, r$tolerance)
  # the workers' tasks ran during it
  expect_true(all(tables$tasks$start_time >= long$start - 0.05))
  expect_true(all(tables$tasks$end_time <= long$end + 0.05))
})

test_that("the waits go through a SQLite database (append, delete) and combine_profiles()", {
  skip_if_not_installed("RSQLite")
  r <- local_waiting_recording()
  waits <- dm::dm_get_tables(r$x)$waits
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  db <- profile_db_append(con, r$x)
  expect_equal(as.data.frame(dplyr::collect(dm::dm_get_tables(db)$waits)), as.data.frame(waits))
  expect_no_error(validate_profile(db))
  # appended again, then the first run deleted: the waits of the run left
  # remain, under its own source, and the database stays valid
  db <- profile_db_append(con, r$x)
  first <- min(dplyr::collect(dm::dm_get_tables(db)$sources)$source_id)
  db <- profile_db_delete(con, dm::dm_filter(db, sources = source_id == !!first))
  left <- as.data.frame(dplyr::collect(dm::dm_get_tables(db)$waits))
  expect_identical(nrow(left), nrow(waits))
  expect_false(first %in% left$source_id)
  expect_equal(left$start_time, waits$start_time)
  expect_no_error(validate_profile(db))
  both <- combine_profiles(r$x, r$x)
  twice <- dm::dm_get_tables(both)$waits
  expect_identical(nrow(twice), 2L * nrow(waits))
  expect_identical(twice$start_time, rep(waits$start_time, 2))
  expect_setequal(twice$source_id, dm::dm_get_tables(both)$sources$source_id[
    dm::dm_get_tables(both)$sources$process_role == "main"
  ])
})

test_that("a recording of one process has no table waits", {
  spin <- function(n) {
    s <- 0
    for (i in seq_len(n)) s <- s + sqrt(i)
    s
  }
  x <- profile_record({
    Sys.sleep(0.1)
    spin(1e5)
  })
  expect_false("waits" %in% names(dm::dm_get_tables(x)))
})
