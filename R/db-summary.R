# Summaries of a database-backed profile: the parts of R/stacks.R with the
# per-sample tables left in the database (see R/db.R).

# ---------------------------------------------------------------------------
# Summaries: the parts of R/stacks.R, with the per-sample tables left in the
# database (`stack` and `values` are db_table()s).

db_summary_parts_tables <- function(x, call) {
  tables <- db_profile_tables(x, call = call)
  local <- tables$local
  local$sample_locations <- tables$db$sample_locations
  local$sample_values <- tables$db$sample_values
  local
}

# The distinct (type, unit) pairs of sample_values, in order of the first
# sample that has them (then in byte order: a table in a database has no row
# order to tell apart the types of one sample).
db_value_types <- function(values) {
  pairs <- db_query(values$con, paste(
    "SELECT \"type\", \"unit\", MIN(\"sample_id\") AS \"first_sample\"",
    "FROM {values} AS \"v\" GROUP BY \"type\", \"unit\""
  ), values = values)
  in_order <- order(pairs$first_sample, pairs$type, pairs$unit, method = "radix")
  pairs <- pairs[in_order, , drop = FALSE]
  tibble::new_tibble(list(type = pairs$type, unit = pairs$unit), nrow = nrow(pairs))
}

# The values of sample type `type`: the query of their `sample_id` and
# `value` (`chosen`, a subquery) and their sum, after the checks the Rust core
# makes in memory: no NA value, one value of the type per sample.
db_values_of_type <- function(values, type, message, call) {
  con <- values$con
  chosen <- sql_fill(
    "(SELECT \"sample_id\", \"value\" FROM {values} AS \"v\" WHERE \"type\" = {type})",
    values = values, type = sql_string(con, type)
  )
  counts <- db_query(con, paste(
    "SELECT SUM(\"value\") AS \"grand_total\", COUNT(*)",
    "AS \"n_rows\", COUNT(\"value\") AS \"n_values\",",
    "COUNT(DISTINCT \"sample_id\") AS \"n_samples\" FROM {chosen} AS \"c\""
  ), chosen = chosen)
  fail <- function(column, sample_id, what) {
    abort_profile("invalid", message, call = call, detail = sprintf(
      "table `sample_values`, column `%s`, a row with sample_id %s: %s",
      column, format_id(sample_id), what
    ))
  }
  if (db_number(counts$n_values) < db_number(counts$n_rows)) {
    row <- db_query(
      con,
      "SELECT \"sample_id\" FROM {chosen} AS \"c\" WHERE \"value\" IS NULL LIMIT 1",
      chosen = chosen
    )
    fail("value", row$sample_id, "is NA")
  }
  if (db_number(counts$n_samples) < db_number(counts$n_rows)) {
    row <- db_query(con,
      paste(
        "SELECT \"sample_id\" FROM {chosen} AS \"c\" GROUP BY \"sample_id\" HAVING COUNT(*) > 1",
        "LIMIT 1"
      ),
      chosen = chosen
    )
    fail(
      "sample_id",
      row$sample_id,
      sprintf("sample %s has two values of the chosen type", format_id(row$sample_id))
    )
  }
  list(chosen = chosen, grand_total = db_number(counts$grand_total))
}

# What ffi_profile_key_totals() returns, computed in the database: self and
# total value per frame key (recursion counted once per sample) and the grand
# total. The key of each location travels to the database as a temporary table.
db_key_totals <- function(parts, type, location_key, n_keys, call) {
  values <- db_values_of_type(parts$values, type, "Can't summarise the profile.", call)
  con <- parts$values$con
  # the key of the last row of a location id, as in memory
  counted <- location_key > 0L & !duplicated(parts$locations$location_id, fromLast = TRUE)
  keys <- db_temporary_table(con, parts$locations$location_id[counted], location_key[counted])
  on.exit(db_drop_table(con, keys))
  # The innermost counted frame: depth 1 when every frame counts.
  innermost <- if (all(location_key > 0L)) {
    "SELECT \"sample_id\", \"key\" FROM \"frames\" WHERE \"depth\" = 1"
  } else {
    paste(
      "SELECT \"f\".\"sample_id\", \"f\".\"key\" FROM \"frames\" AS \"f\" INNER JOIN",
      "(SELECT \"sample_id\", MIN(\"depth\") AS \"depth\" FROM \"frames\"",
      "GROUP BY \"sample_id\") AS \"m\"",
      "ON \"f\".\"sample_id\" = \"m\".\"sample_id\" AND \"f\".\"depth\" = \"m\".\"depth\""
    )
  }
  sums <- db_query(con, paste(
    "WITH \"chosen\" AS {chosen},",
    "\"frames\" AS (SELECT \"s\".\"sample_id\", \"s\".\"depth\", \"k\".\"key\"",
    "FROM {stack} AS \"s\"",
    "INNER JOIN {keys} AS \"k\" ON \"s\".\"location_id\" = \"k\".\"location_id\")",
    "SELECT 1 AS \"self\", \"i\".\"key\", SUM(\"c\".\"value\") AS \"value\"",
    "FROM ({innermost}) AS \"i\"",
    "INNER JOIN \"chosen\" AS \"c\" ON \"i\".\"sample_id\" = \"c\".\"sample_id\"",
    "GROUP BY \"i\".\"key\"",
    "UNION ALL",
    "SELECT 0 AS \"self\", \"d\".\"key\", SUM(\"c\".\"value\") AS \"value\"",
    "FROM (SELECT DISTINCT \"sample_id\", \"key\" FROM \"frames\") AS \"d\"",
    "INNER JOIN \"chosen\" AS \"c\" ON \"d\".\"sample_id\" = \"c\".\"sample_id\"",
    "GROUP BY \"d\".\"key\""
  ), chosen = values$chosen, stack = parts$stack, keys = sql_name(con, keys), innermost = innermost)
  per_key <- function(rows) {
    out <- numeric(n_keys)
    out[as.integer(rows$key)] <- as.double(rows$value)
    out
  }
  self <- as.double(sums$self) == 1
  list(
    self_value = per_key(sums[self, , drop = FALSE]),
    total = per_key(sums[!self, , drop = FALSE]),
    grand_total = values$grand_total
  )
}

# `parts` with the stacks and values of sample type `type` in memory: for a
# database-backed profile, one sample per distinct stack with the summed value
# of its samples (what call trees and folded stacks are made of).
stacks_in_memory <- function(parts, type, call = rlang::caller_env()) {
  if (!is_db_table(parts$values)) {
    return(parts)
  }
  values <- db_values_of_type(parts$values, type, "Can't build the call tree.", call)
  con <- parts$values$con
  grouped <- db_query(con, paste(
    "SELECT \"s\".\"stack\", SUM(\"c\".\"value\") AS \"value\" FROM {chosen} AS \"c\"",
    "LEFT JOIN ({stacks}) AS \"s\" ON \"c\".\"sample_id\" = \"s\".\"sample_id\"",
    "GROUP BY \"s\".\"stack\""
  ), chosen = values$chosen, stacks = db_stack_signatures(parts$stack))
  grouped <- grouped[order(grouped$stack, method = "radix"), , drop = FALSE]
  n <- nrow(grouped)
  parts$stack <- stack_rows_of_signatures(grouped$stack)
  parts$values <- tibble::new_tibble(list(
    sample_id = seq_len(n), type = rep(type, n), value = as.double(grouped$value)
  ), nrow = n)
  parts
}
