# validate_profile() of database-backed profiles (R/db-validate.R): the
# faults of the per-sample tables and of the layout's tables reported as the
# validator in memory reports them, rows named by their sample; on SQLite,
# DuckDB and a PostgreSQL server started by the test run (helper-db.R).

profiles <- sample_profiles()

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

for (backend in db_backends) {
  test_that(paste0(backend, ": validation catches a dangling key inserted by hand"), {
    con <- local_db(backend)
    x <- read_rprof(sample_path("rprof", "1.out"))
    # DuckDB checks foreign keys on every insert: there, tables without them
    db <- if (backend == "duckdb") {
      dm::copy_dm_to(con, x, temporary = FALSE, set_key_constraints = FALSE)
    } else {
      profile_db_append(con, x)
    }
    expect_silent(validate_profile(db))
    # a frame of the stack of sample 3 (in the layout's stack table, under
    # the view sample_locations) names a location that does not exist
    expected_sample <- 3
    without_key_checks(con, {
      if (backend == "duckdb") {
        DBI::dbExecute(con, paste(
          "INSERT INTO sample_locations (sample_id, depth, location_id)",
          "VALUES (3, 99, 99999)"
        ))
      } else {
        stack <- DBI::dbGetQuery(
          con, "SELECT stack_id FROM profile_samples WHERE sample_id = 3"
        )$stack_id
        expected_sample <- DBI::dbGetQuery(con, paste(
          "SELECT MIN(sample_id) AS s FROM profile_samples WHERE stack_id =", stack
        ))$s
        DBI::dbExecute(con, paste(
          "UPDATE profile_stack_frames SET location_id = 99999",
          "WHERE depth = 1 AND stack_id =", stack
        ))
      }
    })
    err <- expect_error(validate_profile(db), class = "profile_error_invalid")
    expect_match(conditionMessage(err), "sample_locations")
    expect_match(
      conditionMessage(err), "value 99999 has no match in `locations`.`location_id`",
      fixed = TRUE
    )
    expect_match(conditionMessage(err), paste("sample_id", expected_sample), fixed = TRUE)
    # the same defect as the database shows it, collected into memory
    if (backend != "duckdb") {
      expect_error(validate_profile(local_profile(db)), "99999", class = "profile_error_invalid")
    }
  })
}

for (backend in c("sqlite", "postgres", "rpostgresql", "duckdb")) {
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
}
