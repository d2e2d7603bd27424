# profile_db_append() (R/db-append.R): the tables of appended profiles are
# those of combine_profiles() of them, with or without merging, meta keys
# kept, a difference refused; on SQLite, DuckDB and a PostgreSQL server
# started by the test run (helper-db.R).

profiles <- sample_profiles()
combined <- combine_profiles(profiles)
summable_types <- setdiff(
  unique(dm::dm_get_tables(combined)$sample_values$type), v2_schema()$gauge_types
)

for (backend in db_backends) {
  test_that(paste0(
    backend, ": appended sample files are combine_profiles() of them, summarised in the database"
  ), {
    con <- local_db(backend)
    # in three appends: one profile, several in one call, the rest
    db <- profile_db_append(con, profiles[[1]])
    db <- profile_db_append(con, profiles[[2]], profiles[[3]], profiles[[4]])
    db <- do.call(profile_db_append, c(list(con), profiles[-(1:4)]))
    expect_true(is_db_profile(db))

    # the same tables, ids included, as combining them in memory
    tables <- collected_tables(db)
    expect_identical(names(tables), names(dm::dm_get_tables(combined)))
    for (t in names(tables)) {
      expect_equal(as.data.frame(tables[[t]]), as.data.frame(dm::dm_get_tables(combined)[[t]]),
        ignore_attr = TRUE, info = t
      )
    }
    expect_silent(validate_profile(db))

    in_db <- all_summaries(db, summable_types)
    expect_identical(in_db, all_summaries(local_profile(db), summable_types))
    expect_identical(in_db, all_summaries(combined, summable_types))
    # the default type and the default rows
    expect_identical(profile_summary(db), profile_summary(combined))
    expect_identical(
      profile_summary(db, sort = "total", n = 3), profile_summary(combined, sort = "total", n = 3)
    )
  })

  test_that(paste0(
    backend, ": without merging, functions and locations repeat and summaries are the same"
  ), {
    con <- local_db(backend)
    for (p in profiles[c(1, 1, 6, 7)]) db <- profile_db_append(con, p, merge = FALSE)
    expect_silent(validate_profile(db))
    counts <- db_row_counts(con)
    unmerged <- combine_profiles(profiles[c(1, 1, 6, 7)], merge = FALSE)
    merged <- combine_profiles(profiles[c(1, 1, 6, 7)])
    expect_equal(counts[["functions"]], nrow(unmerged$functions))
    expect_gt(counts[["functions"]], nrow(merged$functions))
    types <- c("samples", "cpu", "alloc_space")
    expect_identical(all_summaries(db, types), all_summaries(merged, types))
  })

  test_that(paste0(backend, ": two appends of the same file give two sources"), {
    con <- local_db(backend)
    x <- read_rprof(sample_path("rprof", "1.out"))
    db <- profile_db_append(con, x)
    once <- db_row_counts(con)
    db <- profile_db_append(con, x)
    twice <- db_row_counts(con)
    sources <- collected_tables(db)$sources
    expect_identical(sources$source_id, 1:2)
    expect_identical(sources$source_uri, rep(sample_path("rprof", "1.out"), 2))
    per_sample <- c("samples", "sample_values", "sample_locations")
    expect_equal(twice[per_sample], 2 * once[per_sample])
    # merged: the functions and locations of the first append serve both
    expect_equal(twice[c("functions", "locations")], once[c("functions", "locations")])
    # in seconds, equal to the last bits (the database multiplies each stack's
    # sum of ticks by the interval); in ticks, exactly
    expect_equal(profile_summary(db, n = Inf), profile_summary(combine_profiles(x, x), n = Inf))
    expect_identical(
      profile_summary(db, n = Inf, type = "samples"),
      profile_summary(combine_profiles(x, x), n = Inf, type = "samples")
    )

    # one run found by its source (a dm_filter() away) summarises as the file
    second <- dm::dm_filter(db, sources = source_id == 2L)
    expect_equal(
      profile_summary(second, n = Inf)[c("name", "self", "total")],
      profile_summary(x, n = Inf)[c("name", "self", "total")]
    )
    expect_identical(
      profile_summary(second, n = Inf, type = "samples")[c("name", "self", "total")],
      profile_summary(x, n = Inf, type = "samples")[c("name", "self", "total")]
    )
  })
}

for (backend in c("sqlite", "postgres", "rpostgresql", "duckdb")) {
  test_that(paste0(backend, ": a difference of profiles is refused, and nothing changes"), {
    con <- local_db(backend)
    profile_db_append(con, profiles[[1]])
    before <- db_row_counts(con)
    diff <- profile_diff(profiles[[3]], profiles[[1]])
    expect_error(profile_db_append(con, diff), "difference", class = "profile_error_argument")
    expect_error(profile_db_append(con, profiles[[2]], diff), class = "profile_error_argument")
    expect_identical(db_row_counts(con), before)
  })
}

test_that(paste(
  "meta keys of appended profiles follow combine_profiles()'s rule, with the first source as",
  "suffix"
), {
  con <- local_sqlite()
  with_meta <- function(x, value) {
    meta <- tibble::tibble(key = c("version", "host"), value = c("2.0", value))
    dm::dm_mutate_tbl(x, meta = meta)
  }
  profile_db_append(con, with_meta(profiles[[1]], "a"))
  profile_db_append(con, with_meta(profiles[[1]], "a"))
  db <- profile_db_append(con, with_meta(profiles[[1]], "b"))
  meta <- collected_tables(db)$meta
  expect_identical(meta$key, c("version", "host", "host@3"))
  expect_identical(meta$value, c("2.0", "a", "b"))
})
