# Databases in the layout of profile 2.1 (each sample with its whole stack in
# sample_locations, each value with its type and unit in sample_values), for
# the tests of profile_db_upgrade():
#
# - write_db_21(con, profiles): the code path of profile 2.1's
#   profile_db_append() (its CREATE TABLE statements, kept here as 2.1 had
#   them, and its rows: those of combine_profiles(), which 2.1's appends one
#   at a time equal, ids included);
# - write_db_21_installed(path, files): profile 2.1 itself, installed in a
#   library of its own (the environment variable PROFILE_LIB_2_1, or the
#   worktree's .rlib-2.1), run in another R process on Rprof and pprof files
#   appended one at a time into the SQLite file `path`. Skips without it.

# The tables of profile 2.1's format, in an order where each comes after those
# its foreign keys refer to.
tables_21 <- c(
  "meta", "sources", "functions", "samples", "mappings", "sample_types", "source_comments",
  "sample_values", "locations", "sample_labels", "sample_locations"
)

write_db_21 <- function(con, profiles, keys = TRUE) {
  combined <- combine_profiles(profiles)
  tables <- dm::dm_get_tables(combined, keyed = FALSE)
  for (t in tables_21) {
    for (statement in create_table_sql_21(con, t, keys)) DBI::dbExecute(con, statement)
    rows <- as.data.frame(tables[[t]])
    if (t %in% c("sample_types", "source_comments")) {
      rows$position <- seq_len(nrow(rows))
    }
    if (nrow(rows)) db_insert_rows(con, t, rows)
  }
  invisible(combined)
}

# profile 2.1's db_create_table_sql() (R/db-append.R at 5e99a85); with `keys`
# FALSE the plain tables without constraints, as dm::copy_dm_to() writes them
# with set_key_constraints = FALSE.
create_table_sql_21 <- function(con, t, keys = TRUE) {
  schema <- v2_schema()
  q <- function(x) paste(DBI::dbQuoteIdentifier(con, x), collapse = ", ")
  spec <- schema$columns[[t]]
  prototypes <- list(
    integer = integer(), double = double(), character = character(), logical = logical()
  )
  columns <- vapply(seq_along(spec$name), function(j) {
    paste(q(spec$name[[j]]), DBI::dbDataType(con, prototypes[[spec$col_type[[j]]]]))
  }, character(1))
  if (t %in% c("sample_types", "source_comments")) {
    columns <- c(columns, paste(q("position"), DBI::dbDataType(con, integer())))
  }
  unique_columns <- list(
    sample_values = c("sample_id", "type"), sample_locations = c("sample_id", "depth"),
    sample_types = c("source_id", "type")
  )
  indexed <- list(samples = "source_id", sample_labels = "sample_id")
  pk <- schema$primary_keys
  fk <- schema$foreign_keys
  # 2.1 had none of the tables added since (source_lines, OpenTelemetry's)
  fk <- lapply(fk, `[`, fk$ref_table %in% tables_21)
  constraints <- c(
    if (any(pk$table == t)) sprintf("PRIMARY KEY (%s)", q(pk$column[pk$table == t])),
    if (!is.null(unique_columns[[t]])) sprintf("UNIQUE (%s)", q(unique_columns[[t]])),
    vapply(which(fk$table == t), function(i) {
      sprintf(
        "FOREIGN KEY (%s) REFERENCES %s (%s)", q(fk$column[[i]]), q(fk$ref_table[[i]]),
        q(fk$ref_column[[i]])
      )
    }, character(1))
  )
  body <- paste(c(columns, if (keys) constraints), collapse = ",\n  ")
  create <- sprintf("CREATE TABLE %s (\n  %s\n)", q(t), body)
  indexes <- vapply(indexed[[t]], function(col) {
    sprintf("CREATE INDEX %s ON %s (%s)", q(paste0(t, "_", col)), q(t), q(col))
  }, character(1))
  c(create, unname(indexes))
}

# The library holding profile 2.1, or NULL.
library_21 <- function() {
  candidates <- c(
    Sys.getenv("PROFILE_LIB_2_1"),
    testthat::test_path("..", "..", ".rlib-2.1")
  )
  candidates <- candidates[nzchar(candidates) & dir.exists(file.path(candidates, "profile"))]
  if (!length(candidates)) {
    return(NULL)
  }
  lib <- normalizePath(candidates[[1L]])
  version <- read.dcf(file.path(lib, "profile", "DESCRIPTION"), "Version")[[1L]]
  if (!identical(version, "2.1.9000") && !startsWith(version, "2.1.")) {
    return(NULL)
  }
  lib
}

write_db_21_installed <- function(path, files) {
  lib <- library_21()
  if (is.null(lib)) {
    testthat::skip("profile 2.1 is not installed in a library of its own (PROFILE_LIB_2_1)")
  }
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "args <- commandArgs(trailingOnly = TRUE)",
    "con <- DBI::dbConnect(RSQLite::SQLite(), args[[1]])",
    "for (f in args[-1]) {",
    "  x <- if (grepl('[.]pb', f)) profile::read_pprof(f) else profile::read_rprof(f)",
    "  profile::profile_db_append(con, x)",
    "}",
    "DBI::dbDisconnect(con)"
  ), script)
  libs <- paste(c(lib, .libPaths()), collapse = .Platform$path.sep)
  out <- withr::with_envvar(c(R_LIBS = libs), system2(
    file.path(R.home("bin"), "Rscript"), shQuote(c(script, path, files)),
    stdout = TRUE, stderr = TRUE
  ))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) {
    stop("profile 2.1 failed: ", paste(out, collapse = "\n"))
  }
  invisible(path)
}
