# Summaries of database-backed profiles in the database (R/db-summary.R):
# a profile in plain tables (dm::copy_dm_to()) summarised and validated in
# place, and the checks of the values summed; on SQLite, DuckDB and a
# PostgreSQL server started by the test run (helper-db.R).

for (backend in db_backends) {
  test_that(paste0(
    backend, ": a profile copied with dm::copy_dm_to() is validated and summarised in place"
  ), {
    con <- local_db(backend)
    x <- read_pprof(sample_path("pprof", "heap.pb.gz"))
    copied <- if (backend == "rpostgresql") {
      # dm::copy_dm_to() fails on RPostgreSQL connections in dm's own code
      # ("x must be character or SQL"): the same plain tables, written as 2.1
      # wrote them but without key constraints, as copy_dm_to() writes them
      write_db_21(con, list(x), keys = FALSE)
      profile_db(con)
    } else {
      dm::copy_dm_to(con, x, temporary = FALSE, set_key_constraints = FALSE)
    }
    expect_silent(validate_profile(copied))
    for (type in c("alloc_space", "inuse_space")) {
      expect_identical(
        profile_summary(copied, type = type, n = Inf), profile_summary(x, type = type, n = Inf)
      )
    }
    # the default type as go tool pprof chooses it
    expect_identical(
      attr(profile_summary(copied), "sample_type"), attr(profile_summary(x), "sample_type")
    )

    # the same defects as in memory: the same class and message, but for the
    # row, named by its sample in the database
    defects <- list(
      "UPDATE sample_locations SET depth = 40 WHERE sample_id = 2 AND depth = 1" = function(t) {
        stack <- t$sample_locations
        stack$depth[stack$sample_id == 2L & stack$depth == 1L] <- 40L
        t$sample_locations <- stack
        t
      },
      "UPDATE sample_values SET sample_id = 0 WHERE sample_id = 5" = function(t) {
        t$sample_values$sample_id[t$sample_values$sample_id == 5L] <- 0L
        t
      },
      "UPDATE samples SET source_id = NULL WHERE sample_id = 9" = function(t) {
        t$samples$source_id[t$samples$sample_id == 9L] <- NA_integer_
        t
      }
    )
    without_row <- function(e) {
      sub(", (row [0-9]+|a row with sample_id [0-9]+):", ":", conditionMessage(e))
    }
    for (statement in names(defects)) {
      DBI::dbWithTransaction(con, {
        DBI::dbExecute(con, statement)
        in_db <- expect_error(validate_profile(copied), class = "profile_error_invalid")
        DBI::dbBreak()
      })
      damaged <- defects[[statement]](dm::dm_get_tables(x))
      in_memory <- expect_error(
        validate_profile(dm::dm_mutate_tbl(x, !!!damaged)),
        class = "profile_error_invalid"
      )
      expect_identical(without_row(in_db), without_row(in_memory))
      expect_match(conditionMessage(in_db), "a row with sample_id", fixed = TRUE)
    }
    expect_silent(validate_profile(copied))
  })
}

test_that("summaries in the database refuse NA values and repeated types as in memory", {
  con <- local_sqlite()
  x <- tiny_v2()
  copied <- dm::copy_dm_to(con, x, temporary = FALSE)
  DBI::dbExecute(con, "UPDATE sample_values SET value = NULL WHERE sample_id = 2")
  expect_error(profile_summary(copied), "is NA", class = "profile_error_invalid")
  DBI::dbExecute(con, "UPDATE sample_values SET value = 1 WHERE sample_id = 2")
  DBI::dbExecute(con, "INSERT INTO sample_values VALUES (2, 'samples', 'count', 1)")
  expect_error(
    profile_summary(copied), "two values of the chosen type",
    class = "profile_error_invalid"
  )
  expect_error(validate_profile(copied), "must be unique", class = "profile_error_invalid")
})
