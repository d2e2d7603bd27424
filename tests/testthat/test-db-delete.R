# profile_db_delete() (R/db-delete.R): a database holds what appending the
# sources that stay alone stores, and a delete that fails changes nothing; on
# SQLite, DuckDB and a PostgreSQL server started by the test run
# (helper-db.R).

profiles <- sample_profiles()

# The tables of a database that matter to an equality of content: row
# counts of every table (layout included) but the one-row info table.
content_counts <- function(con) {
  counts <- db_row_counts(con)
  counts[setdiff(names(counts), "profile_db_info")]
}

for (backend in c("sqlite", "postgres", "rpostgresql", "duckdb")) {
  test_that(paste0(backend, ": deleting a source leaves what appending the others alone stores"), {
    con <- local_db(backend)
    others <- local_db(backend)
    all <- profiles[c(1, 4, 2, 6, 3, 7, 4)]
    for (p in all) db <- profile_db_append(con, p)
    for (p in all[-c(2, 4)]) alone <- profile_db_append(others, p)
    # by id, then through a filter of the dm
    db <- profile_db_delete(con, 2L)
    cpu <- sample_path("pprof", "cpu.pb.gz")
    db <- profile_db_delete(con, dm::dm_filter(db, sources = source_uri == !!cpu))
    expect_identical(content_counts(con), content_counts(others))
    expect_silent(validate_profile(db))
    expect_identical(everything_shown(db), everything_shown(alone))
    expect_identical(everything_shown(db), everything_shown(combine_profiles(all[-c(2, 4)])))
    sources <- collected_tables(db)$sources
    expect_identical(sources$source_id, c(1L, 3L, 5L, 6L, 7L))

    # deleting everything leaves empty tables, which take appends again
    db <- profile_db_delete(con, data.frame(source_id = sources$source_id))
    counts <- content_counts(con)
    expect_equal(unname(counts[setdiff(names(counts), "meta")]), rep(0, length(counts) - 1))
    db <- profile_db_append(con, profiles[[1]])
    # seconds of Rprof ticks: the database multiplies each stack's sum of
    # ticks by the interval, memory sums each tick's seconds (equal to the
    # last bits); the counts are equal exactly
    expect_equal(profile_summary(db, n = Inf), profile_summary(profiles[[1]], n = Inf))
    expect_identical(
      profile_summary(db, n = Inf, type = "samples"),
      profile_summary(profiles[[1]], n = Inf, type = "samples")
    )
  })

  test_that(paste0(backend, ": a delete that fails half-way leaves every table as it was"), {
    con <- local_db(backend)
    for (p in profiles[c(1, 6, 2)]) profile_db_append(con, p)
    before <- db_row_counts(con)
    suppressMessages(trace("db_delete_unused_locations",
      tracer = quote(stop("the disk is full")), where = asNamespace("profile"), print = FALSE
    ))
    withr::defer(suppressMessages(
      untrace("db_delete_unused_locations", where = asNamespace("profile"))
    ))
    err <- expect_error(profile_db_delete(con, 2L), class = "profile_error_io")
    expect_match(conditionMessage(err$parent), "the disk is full")
    expect_identical(db_row_counts(con), before)
    expect_error(profile_db_delete(con, "two"), class = "profile_error_argument")
    expect_identical(db_row_counts(con), before)
  })
}

# Recordings carry the text of their code (source_lines, keyed by source): a
# delete takes it with the source (issue 32: SQLite kept it, PostgreSQL
# refused the delete on its foreign key). OpenTelemetry profiles carry
# attributes keyed by source, mapping, location, scope and resource: the
# database holds what appending the other source alone stores.
recorded_runs <- function() {
  list(
    profile_record(for (i in 1:40) sum(sort(runif(2e4))), interval = 0.005),
    profile_record(
      {
        v <- 0
        for (i in 1:60) v <- v + sum(cumsum(runif(2e4)))
      },
      interval = 0.005
    )
  )
}

lines_of_source <- function(tables, id) {
  lines <- tables$source_lines[tables$source_lines$source_id == id, ]
  lines[order(lines$filename, lines$line), c("filename", "line", "text")]
}

for (backend in c("sqlite", "postgres")) {
  test_that(paste0(backend, ": deleting a recording deletes its source_lines"), {
    con <- local_db(backend)
    runs <- recorded_runs()
    for (p in runs) db <- profile_db_append(con, p)
    kept <- lines_of_source(dm::dm_get_tables(runs[[2]]), 1L)
    expect_gt(nrow(kept), 0L)
    db <- profile_db_delete(con, dm::dm_filter(db, sources = source_id == 1L))
    expect_silent(validate_profile(profile_db(con)))
    tables <- collected_tables(profile_db(con))
    expect_identical(tables$sources$source_id, 2L)
    expect_identical(unique(tables$source_lines$source_id), 2L)
    expect_equal(lines_of_source(tables, 2L), kept, ignore_attr = TRUE)
  })

  test_that(paste0(backend, ": deleting an OpenTelemetry source deletes its attributes"), {
    con <- local_db(backend)
    otlp <- read_otlp(sample_path("otlp", "otep-0239.pb"))
    others <- local_db(backend)
    db <- profile_db_append(con, profiles[[1]])
    db <- profile_db_append(con, otlp)
    alone <- profile_db_append(others, profiles[[1]])
    db <- profile_db_delete(con, dm::dm_filter(db, sources = source_type == "otlp"))
    expect_silent(validate_profile(db))
    expect_identical(content_counts(con), content_counts(others))
  })
}

# Found by the composition suite (test-compose-pipelines.R): the attribute
# tables of OpenTelemetry profiles were left behind (validation failed on
# `mapping_attributes` rows of deleted mappings; PostgreSQL refused the delete
# on their foreign keys), and so were scopes and resources no source used.
for (backend in c("sqlite", "postgres")) {
  test_that(paste0(
    backend, ": deleting OTLP sources deletes their attributes, scopes and resources"
  ), {
    ebpf <- read_otlp(otlp_shared_file("pyroscope/otel-ebpf-profile.pb.bin"))
    otlp_tables <- v2_schema()$otlp_tables
    expect_gt(nrow(dm::dm_get_tables(ebpf)$mapping_attributes), 0L)
    con <- local_db(backend)
    db <- profile_db_append(con, profiles[[1]])
    db <- profile_db_append(con, ebpf)
    ids <- collected_tables(db)$sources$source_id
    db <- profile_db_delete(con, ids[-1])
    expect_silent(validate_profile(db))
    counts <- db_row_counts(con)
    expect_equal(unname(counts[otlp_tables]), rep(0, length(otlp_tables)))
    expect_identical(everything_shown(db), everything_shown(profiles[[1]]))
  })
}
