# The writers, flame graphs and folded stacks of database-backed profiles
# (R/db-write.R, and the stacks of R/db-summary.R): the same files and
# drawings as of the profile in memory, pprof's aggregated in the database;
# on SQLite, DuckDB and a PostgreSQL server started by the test run
# (helper-db.R).

profiles <- sample_profiles()
combined <- combine_profiles(profiles)
summable_types <- setdiff(
  unique(dm::dm_get_tables(combined)$sample_values$type), v2_schema()$gauge_types
)

for (backend in db_backends) {
  test_that(paste0(
    backend, ": flame graphs, folded stacks and writers take the database's profile"
  ), {
    con <- local_db(backend)
    db <- do.call(profile_db_append, c(list(con), profiles))

    for (type in c("samples", "cpu", "alloc_space")) {
      grDevices::pdf(NULL)
      drawn <- profile_flamegraph(db, type = type)
      expected <- profile_flamegraph(combined, type = type)
      grDevices::dev.off()
      expect_equal(drawn, expected)
      ours <- withr::local_tempfile(fileext = ".folded")
      theirs <- withr::local_tempfile(fileext = ".folded")
      write_folded(db, ours, type = type)
      write_folded(combined, theirs, type = type)
      expect_identical(readLines(ours), readLines(theirs))
    }

    # Rprof: one segment per source, as in memory
    ours <- withr::local_tempfile(fileext = ".out")
    theirs <- withr::local_tempfile(fileext = ".out")
    expect_identical(write_rprof(db, ours), db)
    write_rprof(combined, theirs)
    expect_identical(readLines(ours), readLines(theirs))

    # pprof: aggregated in the database, so the samples differ but the totals
    # of every summable type, the stacks and the labels do not
    ours <- withr::local_tempfile(fileext = ".pb.gz")
    theirs <- withr::local_tempfile(fileext = ".pb.gz")
    write_pprof(db, ours)
    write_pprof(combined, theirs)
    ours <- read_pprof(ours)
    theirs <- read_pprof(theirs)
    expect_lt(nrow(ours$samples), nrow(theirs$samples))
    expect_identical(all_summaries(ours, summable_types), all_summaries(theirs, summable_types))
    labels <- function(p) {
      t <- dm::dm_get_tables(p)
      v <- t$sample_values[t$sample_values$type == "alloc_space", ]
      l <- merge(t$sample_labels, data.frame(sample_id = v$sample_id, amount = v$value))
      l <- stats::aggregate(amount ~ key + num, data = l, FUN = sum)
      l[order(l$key, l$num), ]
    }
    expect_equal(labels(ours), labels(theirs), ignore_attr = TRUE)
  })
}

# Found by the composition suite (test-compose-pipelines.R): a database whose
# profile has no sample (a verb's empty result appended) failed in the view,
# speedscope, pprof and OTLP writers, on R errors of text that SQLite gave as
# logical(0); one without sources in write_speedscope().
test_that("a database's profile without samples is viewed and written as in memory", {
  heap <- read_pprof(system.file("samples", "pprof", "heap.pb.gz", package = "profile"))
  empty <- suppressWarnings(profile_focus(heap, "^no such function$"))
  expect_identical(nrow(empty$samples), 0L)
  con <- local_db("sqlite")
  db <- profile_db_append(con, empty)
  html <- withr::local_tempfile(fileext = ".html")
  expect_identical(profile_view(db, file = html), html)
  json <- withr::local_tempfile(fileext = ".json")
  write_speedscope(db, json)
  expect_identical(jsonlite::fromJSON(json, simplifyVector = FALSE)$profiles, list())
  pb <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(db, pb)
  back <- read_pprof(pb)
  expect_identical(nrow(back$samples), 0L)
  expect_identical(back$sample_types$type, heap$sample_types$type)
  otlp <- withr::local_tempfile(fileext = ".pb")
  write_otlp(db, otlp)
  expect_identical(nrow(read_otlp(otlp)$samples), 0L)
  # and a database whose every source was deleted: no source, no profile
  db <- profile_db_delete(con, 1L)
  expect_identical(nrow(dplyr::collect(db$sources)), 0L)
  write_speedscope(db, json)
  expect_identical(jsonlite::fromJSON(json, simplifyVector = FALSE)$profiles, list())
})

# Found by the composition suite in CI (seed 201554781): write_rprof() of a
# database's profile failed when samples reach a pprof location only as the
# line an inlined frame is inlined into (dm_filter() does not follow
# `locations.inlined_into`), and wrote an empty file, which read_rprof()
# refuses, for a database whose every source was deleted.
test_that("write_rprof() of a database writes what it writes of the profile in memory", {
  mutex <- read_pprof(system.file("samples", "pprof", "mutex.pb.gz", package = "profile"))
  hidden <- profile_hide(mutex, "\\Qmai\\E")
  tables <- dm::dm_get_tables(hidden)
  targets <- stats::na.omit(tables$locations$inlined_into)
  expect_true(any(!targets %in% tables$sample_locations$location_id))
  con <- local_db("sqlite")
  db <- profile_db_append(con, hidden)
  ours <- withr::local_tempfile(fileext = ".out")
  theirs <- withr::local_tempfile(fileext = ".out")
  write_rprof(profile_db(con), ours)
  write_rprof(hidden, theirs)
  expect_identical(readLines(ours), readLines(theirs))
  expect_identical(
    utils::summaryRprof(ours)$by.self, utils::summaryRprof(theirs)$by.self
  )

  db <- profile_db_delete(con, dplyr::collect(db$sources)$source_id)
  expect_identical(nrow(dplyr::collect(db$sources)), 0L)
  empty <- dm::dm_filter(hidden, sources = .data$source_id < 0L)
  write_rprof(db, ours)
  write_rprof(empty, theirs)
  expect_identical(readLines(ours), readLines(theirs))
  back <- read_rprof(ours)
  expect_identical(nrow(back$samples), 0L)
})
