# The database layout of 2.2 (R/db-layout.R): each stack stored once under
# views that show every sample, and the columns a later append brings; on
# SQLite, on a PostgreSQL server started by the test run (helper-db.R)
# through RPostgres and RPostgreSQL, and on DuckDB where it is installed.

profiles <- sample_profiles()

for (backend in c("sqlite", "postgres", "rpostgresql", "duckdb")) {
  test_that(paste0(backend, ": each distinct stack is stored once; the views show all samples"), {
    con <- local_db(backend)
    x <- profiles[[4]] # memory.out: five sample types
    db <- profile_db_append(con, x)
    once <- db_row_counts(con)
    db <- profile_db_append(con, x)
    twice <- db_row_counts(con)
    # stacks, frames, types and locations are not stored again
    stored_once <- c(
      "profile_stacks", "profile_stack_frames", "profile_value_types", "locations", "functions"
    )
    expect_equal(twice[stored_once], once[stored_once])
    expect_equal(twice[["profile_samples"]], 2 * once[["profile_samples"]])
    stacks <- dm::dm_get_tables(x)$sample_locations
    # (samples without frames share the empty stack)
    samples <- dm::dm_get_tables(x)$samples$sample_id
    per_sample <- split(stacks$location_id, factor(stacks$sample_id, levels = samples))
    n_distinct_stacks <- length(unique(vapply(per_sample, paste, "", collapse = ",")))
    expect_equal(once[["profile_stacks"]], n_distinct_stacks)
    # what a user reads from the views is the long form of 2.1, for both runs
    expect_equal(
      as.numeric(DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM sample_locations")$n),
      2 * nrow(stacks)
    )
    collected <- collected_tables(db)
    expected <- dm::dm_get_tables(combine_profiles(x, x))
    for (t in names(expected)) {
      expect_equal(as.data.frame(collected[[t]]), as.data.frame(expected[[t]]),
        ignore_attr = TRUE, info = t
      )
    }
    # a dplyr query over the views gives what it gives in memory
    by_type <- function(v) {
      grouped <- dplyr::group_by(v, type)
      out <- dplyr::collect(dplyr::summarise(grouped, total = sum(value, na.rm = TRUE)))
      out[order(out$type), ]
    }
    expect_equal(by_type(db$sample_values), by_type(expected$sample_values), ignore_attr = TRUE)
    expect_identical(everything_shown(db), everything_shown(combine_profiles(x, x)))
  })
}

for (backend in db_backends) {
  test_that(paste0(backend, ": a later append brings the columns the tables lack"), {
    con <- local_db(backend)
    profile_db_append(con, profiles[[1]])
    # a database made when the format had no `doc_url` and `drop_frames`
    for (col in c("doc_url", "drop_frames")) {
      DBI::dbExecute(con, paste("ALTER TABLE sources DROP COLUMN", col))
    }
    expect_false("doc_url" %in% DBI::dbListFields(con, "sources"))
    db <- profile_db_append(con, profiles[[6]])
    expect_true(all(c("doc_url", "drop_frames") %in% DBI::dbListFields(con, "sources")))
    sources <- collected_tables(db)$sources
    expect_identical(sources$doc_url, c(NA, dm::dm_get_tables(profiles[[6]])$sources$doc_url))
    expect_silent(validate_profile(db))
    expect_identical(
      profile_summary(db, type = "cpu", n = Inf),
      profile_summary(combine_profiles(profiles[c(1, 6)]), type = "cpu", n = Inf)
    )
  })
}
