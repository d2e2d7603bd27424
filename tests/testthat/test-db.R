# Database-backed profiles (R/db.R): profile_db() and the checks of its
# connection, and collecting a database's profile into memory (the verbs,
# combine_profiles(), an append of it to another database), on SQLite, DuckDB
# and a PostgreSQL server started by the test run (helper-db.R).

profiles <- sample_profiles()
combined <- combine_profiles(profiles)

for (backend in c("sqlite", "postgres", "rpostgresql", "duckdb")) {
  test_that(paste0(backend, ": a collected database profile validates"), {
    con <- local_db(backend)
    db <- do.call(profile_db_append, c(list(con), profiles))
    collected <- dplyr::collect(db)
    expect_false(is_db_profile(collected))
    expect_silent(validate_profile(collected))
    expect_identical(profile_summary(collected, n = Inf), profile_summary(db, n = Inf))
  })
}

test_that("profile_db() opens the database's profile again; arguments are checked", {
  path <- withr::local_tempfile(fileext = ".sqlite")
  con <- local_sqlite(path = path)
  expect_error(profile_db(con), "no profile", class = "profile_error_invalid")
  profile_db_append(con, profiles[[1]], profiles[[6]])
  DBI::dbDisconnect(con)
  again <- DBI::dbConnect(RSQLite::SQLite(), path)
  withr::defer(DBI::dbDisconnect(again))
  db <- profile_db(again)
  expect_silent(validate_profile(db))
  expect_identical(profile_summary(db), profile_summary(combine_profiles(profiles[c(1, 6)])))

  expect_error(profile_db_append("db.sqlite", profiles[[1]]), class = "profile_error_argument")
  expect_error(
    profile_db_append(again, profiles[[1]], merge = NA),
    class = "profile_error_argument"
  )
  expect_error(profile_db_append(again, "not a profile"), class = "profile_error_argument")
  closed <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbDisconnect(closed)
  expect_error(profile_db(closed), "closed", class = "profile_error_argument")
})

test_that("a database-backed profile is appended to another database, and combined in memory", {
  from <- local_sqlite()
  to <- local_sqlite()
  source_db <- profile_db_append(from, profiles[[1]], profiles[[6]])
  db <- profile_db_append(to, source_db, profiles[[2]])
  expected <- combine_profiles(profiles[c(1, 6, 2)])
  expect_identical(profile_summary(db, n = Inf), profile_summary(expected, n = Inf))
  expect_identical(
    profile_summary(combine_profiles(source_db, profiles[[2]]), n = Inf),
    profile_summary(expected, n = Inf)
  )
})

test_that(paste(
  "the verbs take a database-backed profile (read into memory) and agree with the profile in",
  "memory"
), {
  con <- local_sqlite()
  db <- do.call(profile_db_append, c(list(con), profiles))
  verbs <- list(
    focus = function(x) profile_focus(x, "fib"),
    ignore = function(x) profile_ignore(x, "runtime\\."),
    hide = function(x) profile_hide(x, "^runtime\\."),
    show = function(x) profile_show(x, "main"),
    show_from = function(x) profile_show_from(x, "^main\\."),
    prune_from = function(x) profile_prune_from(x, "^runtime\\."),
    filter_labels = function(x) profile_filter_labels(x, focus = "worker=hash|text"),
    select_types = function(x) profile_select_types(x, c("samples", "cpu")),
    scale = function(x) profile_scale(x, 3),
    aggregate = function(x) profile_aggregate(x),
    window = function(x) profile_window(x, from = 0.01, to = 0.5),
    diff = function(x) profile_diff(x, profiles[[1]]),
    diff_base = function(x) profile_diff(profiles[[2]], x)
  )
  for (verb in names(verbs)) {
    from_db <- verbs[[verb]](db)
    in_memory <- verbs[[verb]](combined)
    expect_false(is_db_profile(from_db))
    for (type in c("samples", "cpu")) {
      expect_identical(
        profile_summary(from_db, type = type, n = Inf),
        profile_summary(in_memory, type = type, n = Inf),
        info = verb
      )
    }
  }
  # narrowed to one run in the database first
  one_run <- profile_focus(dm::dm_filter(db, sources = source_id == 1L), "fib")
  expect_identical(
    profile_summary(one_run, n = Inf),
    profile_summary(profile_focus(profiles[[1]], "fib"), n = Inf)
  )
})
