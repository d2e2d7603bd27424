# The database layout of 2.2 (R/db-layout.R): each stack stored once,
# profile_db_delete(), profile_db_upgrade(), many writers, on SQLite, on a
# PostgreSQL server started by the test run (helper-db.R) through RPostgres
# and RPostgreSQL, and on DuckDB where it is installed.

profiles <- sample_profiles()
summable_types <- c("samples", "alloc_size", "cpu", "alloc_space", "contentions")

# The tables of a database that matter to an equality of content: row
# counts of every table (layout included) but the one-row info table.
content_counts <- function(con) {
  counts <- db_row_counts(con)
  counts[setdiff(names(counts), "profile_db_info")]
}

# Every summary, the folded stacks of each type and the pprof file written,
# as what they say (not the ids).
everything_shown <- function(x, types = summable_types) {
  present <- unique(dplyr::collect(x$sample_values)$type)
  types <- intersect(types, present)
  folded <- lapply(types, function(type) {
    path <- withr::local_tempfile(fileext = ".folded")
    write_folded(x, path, type = type)
    sort(readLines(path))
  })
  list(summaries = all_summaries(x, types), folded = folded)
}

# Defects of the rows of profile_samples, as the SQL that makes each on
# `backend`, with a function making the same defect in a profile's `samples`
# in memory.
sample_row_defects <- function(backend) {
  infinity <- if (backend == "sqlite") "9e999" else "'Infinity'"
  defects <- list(
    "SET time = -1 WHERE sample_id = 5" = function(s) {
      s$time[s$sample_id == 5L] <- -1
      s
    },
    "SET source_id = NULL WHERE sample_id = 9" = function(s) {
      s$source_id[s$sample_id == 9L] <- NA_integer_
      s
    },
    "SET source_id = 99 WHERE sample_id = 7" = function(s) {
      s$source_id[s$sample_id == 7L] <- 99L
      s
    },
    "SET time = {infinity} WHERE sample_id = 3" = function(s) {
      s$time[s$sample_id == 3L] <- Inf
      s
    }
  )
  names(defects) <- sub("{infinity}", infinity, names(defects), fixed = TRUE)
  if (backend == "sqlite") {
    # a source is part of the samples' primary key there, never NULL
    defects[["SET source_id = NULL WHERE sample_id = 9"]] <- NULL
  }
  defects
}

# The fault that `statement` (an UPDATE of profile_samples, made in a
# transaction rolled back) gives validate_profile() of the database's
# profile `db`: the message of the validator in memory for the same defect
# (`damage` of the collected profile's samples) but for the row, named by its
# sample in the database.
expect_fault_as_in_memory <- function(con, db, collected, statement, damage) {
  in_db <- NULL
  DBI::dbWithTransaction(con, {
    without_key_checks(con, DBI::dbExecute(con, paste("UPDATE profile_samples", statement)))
    in_db <- expect_error(validate_profile(db), class = "profile_error_invalid")
    DBI::dbBreak()
  })
  damaged <- damage(dm::dm_get_tables(collected)$samples)
  in_memory <- expect_error(
    validate_profile(dm::dm_mutate_tbl(collected, samples = damaged)),
    class = "profile_error_invalid"
  )
  without_row <- function(e) {
    sub(", (row [0-9]+|a row with sample_id [0-9]+):", ":", conditionMessage(e))
  }
  expect_identical(without_row(in_db), without_row(in_memory))
  sample <- regmatches(statement, regexpr("[0-9]+$", statement))
  expect_match(conditionMessage(in_db), paste("a row with sample_id", sample), fixed = TRUE)
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

  test_that(paste0(backend, ": a collected database profile validates"), {
    con <- local_db(backend)
    db <- do.call(profile_db_append, c(list(con), profiles))
    collected <- dplyr::collect(db)
    expect_false(is_db_profile(collected))
    expect_silent(validate_profile(collected))
    expect_identical(profile_summary(collected, n = Inf), profile_summary(db, n = Inf))
  })

  test_that(paste0(backend, ": validation checks the per-stack sums against the samples"), {
    con <- local_db(backend)
    db <- do.call(profile_db_append, c(list(con), profiles))
    expect_silent(validate_profile(db))
    sql <- function(...) DBI::dbExecute(con, paste(...))
    first_stack <- function(source) {
      paste(
        "(SELECT MIN(stack_id) FROM profile_source_stacks WHERE source_id =", source, ")"
      )
    }
    # a count of source 2 that is not its samples'
    sql(
      "UPDATE profile_source_stacks SET n_samples = n_samples + 1",
      "WHERE source_id = 2 AND stack_id =", first_stack(2)
    )
    err <- expect_error(validate_profile(db), class = "profile_error_invalid")
    expect_match(conditionMessage(err), "profile_source_stacks", fixed = TRUE)
    expect_match(conditionMessage(err), "1 of its (source, stack) rows", fixed = TRUE)
    expect_match(conditionMessage(err), "source_id 2", fixed = TRUE)
    # a profile of other sources does not read those rows
    expect_silent(validate_profile(dm::dm_filter(db, sources = source_id == 1L)))
    sql(
      "UPDATE profile_source_stacks SET n_samples = n_samples - 1",
      "WHERE source_id = 2 AND stack_id =", first_stack(2)
    )
    expect_silent(validate_profile(db))
    # a sum of a value slot
    sql(
      "UPDATE profile_source_stacks SET value_1 = value_1 * 2 + 1",
      "WHERE source_id = 3 AND stack_id =", first_stack(3)
    )
    err <- expect_error(validate_profile(db), class = "profile_error_invalid")
    expect_match(conditionMessage(err), "source_id 3", fixed = TRUE)
    sql(
      "UPDATE profile_source_stacks SET value_1 = (value_1 - 1) / 2",
      "WHERE source_id = 3 AND stack_id =", first_stack(3)
    )
    expect_silent(validate_profile(db))
    # a row of a stack that no sample of the source has
    unused <- DBI::dbGetQuery(con, paste(
      "SELECT MIN(stack_id) AS s FROM profile_stacks WHERE stack_id NOT IN",
      "(SELECT stack_id FROM profile_source_stacks WHERE source_id = 1)"
    ))$s
    expect_false(is.na(unused))
    sql(
      "INSERT INTO profile_source_stacks (source_id, stack_id, n_samples) VALUES (1,",
      unused, ", 1)"
    )
    err <- expect_error(validate_profile(db), class = "profile_error_invalid")
    expect_match(conditionMessage(err), "rows for", fixed = TRUE)
  })

  test_that(paste0(backend, ": validation reports the faults of the sample rows as in memory"), {
    con <- local_db(backend)
    db <- do.call(profile_db_append, c(list(con), profiles))
    collected <- dplyr::collect(db)
    defects <- sample_row_defects(backend)
    Map(function(statement, damage) {
      expect_fault_as_in_memory(con, db, collected, statement, damage)
    }, names(defects), defects)
    # a sample whose stack is not stored
    DBI::dbWithTransaction(con, {
      without_key_checks(con, DBI::dbExecute(
        con, "UPDATE profile_samples SET stack_id = 99999 WHERE sample_id = 4"
      ))
      err <- expect_error(validate_profile(db), class = "profile_error_invalid")
      DBI::dbBreak()
    })
    expect_match(conditionMessage(err), "a row with sample_id 4", fixed = TRUE)
    expect_match(conditionMessage(err), "its stack 99999 is not stored", fixed = TRUE)
    expect_silent(validate_profile(db))
  })

  test_that(paste0(backend, ": a difference of profiles is refused, and nothing changes"), {
    con <- local_db(backend)
    profile_db_append(con, profiles[[1]])
    before <- db_row_counts(con)
    diff <- profile_diff(profiles[[3]], profiles[[1]])
    expect_error(profile_db_append(con, diff), "difference", class = "profile_error_argument")
    expect_error(profile_db_append(con, profiles[[2]], diff), class = "profile_error_argument")
    expect_identical(db_row_counts(con), before)
  })

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
