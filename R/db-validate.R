# Validation of a database-backed profile: the small tables in Rust, the
# per-sample tables as SQL in the database (see R/db.R).

# ---------------------------------------------------------------------------
# Validation

validate_db <- function(x, call = rlang::caller_env()) {
  tables <- db_profile_tables(x, call = call)
  check_v2_keys(x, tables$local, call = call)
  # Every rule of the small tables, in Rust as for a profile in memory (the
  # per-sample tables have no rows here, so no rule involves them).
  rust_value(
    ffi_profile_validate_v2(bundle_from_tables(tables$local)), "Invalid v2 profile.",
    call = call
  )
  stacks <- db_stack_source(x)
  if (is.null(stacks)) {
    db_check_per_sample_rows(tables$db, call = call)
  } else {
    db_check_layout_rows(stacks, tables, call = call)
  }
  invisible(x)
}

# The rules of db_check_per_sample_rows() on the tables of the layout
# (R/db-layout.R) where the views are the per-sample tables. The rows of
# profile_samples are read once, grouped by source and stack
# (db_samples_pass()): whether a row breaks a rule of its columns (NA,
# positive ids and times), which sources the samples have, whether each
# stack is stored, and, where the profile has whole sources, the counts and
# sums that profile_source_stacks must hold. A sample id is unique by the
# table's primary key (SQLite: a unique index). Then the frames of each
# stored stack once (depths 1..n, locations that exist) and the value slots
# of each source (one type of a name per source). Values are never NA in the
# view (a slot without a value is no row), and every row of the views
# belongs to a sample. Faults are reported in the order of the validator;
# the row that shows one is looked up only when there is one.
db_check_layout_rows <- function(stacks, tables, call) {
  con <- stacks$con
  p <- db_physical
  fail <- function(table, column, sample_id, message) {
    abort_profile("invalid", "Invalid v2 profile.", call = call, detail = sprintf(
      "table `%s`, column `%s`, a row with sample_id %s: %s",
      table, column, format_id(sample_id), message
    ))
  }
  from <- sprintf('FROM %s AS "p" WHERE %s', sql_name(con, p$samples), stacks$where)
  rules <- db_column_rules(tables$db, "samples")
  slot_count <- if (is.null(stacks$sources)) 0L else db_slot_count(db_columns(con, p$samples))
  pass <- db_samples_pass(
    con, stacks$where, rules$breaks, slot_count,
    whole_sources = !is.null(stacks$sources)
  )
  # the first rule broken, in the validator's order (a query each, only when
  # some row breaks one)
  if (any(as.double(pass$broken) > 0)) {
    for (k in seq_len(nrow(rules))) {
      column <- rules$column[[k]]
      row <- DBI::dbGetQuery(con, sprintf(
        'SELECT "p"."sample_id", "p".%s AS "value" %s AND (%s) LIMIT 1',
        sql_name(con, column), from, rules$breaks[[k]]
      ))
      if (nrow(row)) fail("samples", column, row$sample_id, rules$message[[k]](row$value))
    }
  }
  dangling <- setdiff(as_column_type(pass$source_id, "integer"), tables$local$sources$source_id)
  if (length(dangling)) {
    row <- DBI::dbGetQuery(con, sprintf(
      'SELECT "p"."sample_id" %s AND "p"."source_id" = %s LIMIT 1', from, format_id(dangling[[1L]])
    ))
    fail("samples", "source_id", row$sample_id, sprintf(
      "value %s has no match in `sources`.`source_id`", format_id(dangling[[1L]])
    ))
  }
  if (sum(as.double(pass$n_unstored)) > 0) {
    no_stack <- DBI::dbGetQuery(con, paste(
      'SELECT "p"."sample_id", "p"."stack_id"', from, "AND NOT EXISTS",
      sprintf(
        '(SELECT 1 FROM %s AS "s" WHERE "s"."stack_id" = "p"."stack_id")', sql_name(con, p$stacks)
      ),
      'ORDER BY "p"."sample_id" LIMIT 1'
    ))
    fail("sample_locations", "sample_id", no_stack$sample_id, sprintf(
      "its stack %s is not stored (table `%s`)", format_id(no_stack$stack_id), p$stacks
    ))
  }
  db_check_stored_stacks(con, tables$local$locations$location_id, fail, stacks$where)
  slots <- db_slots(con)
  repeated <- vctrs::vec_duplicate_detect(slots[c("source_id", "type")])
  if (any(repeated)) {
    source <- slots$source_id[repeated][[1L]]
    row <- DBI::dbGetQuery(con, sprintf(
      'SELECT "p"."sample_id" %s AND "p"."source_id" = %s LIMIT 1', from, source
    ))
    fail("sample_values", "type", row$sample_id, sprintf(
      '(`sample_id`, `type`) must be unique but type "%s" occurs more than once',
      slots$type[repeated][[1L]]
    ))
  }
  if ("sample_labels" %in% names(tables$db)) {
    db_check_column_rules(tables$db, "sample_labels", fail)
    db_check_keys(tables$db, "sample_labels", fail)
  }
  if (!is.null(stacks$sources)) {
    db_check_source_stacks(con, pass, stacks$sources, call)
  }
}

# The one pass of validation over the rows of profile_samples that `where`
# (a condition on profile_samples "p") chooses: per source, the number of
# its (source, stack) groups, of those whose stack is not stored
# (`n_unstored`), and whether a row breaks one of the rules `breaks` (SQL
# conditions on the row; `broken`, 1 or 0: one flag, as each aggregate costs
# SQLite a step per row). With `whole_sources`, also the number of groups
# whose row of profile_source_stacks is missing or differs from the
# samples' count and sums of the `slot_count` value slots
# (`n_bad`: equal sums within a relative 1e-9, NULL where no sample has a
# value in the slot). One row per source: the grouping by stack is the work,
# what comes back to R is small.
db_samples_pass <- function(con, where, breaks, slot_count, whole_sources) {
  p <- db_physical
  q <- function(x) sql_name(con, x)
  any_broken <- if (length(breaks)) paste0("(", breaks, ")", collapse = " OR ") else "1 = 0"
  inner <- c(
    '"p"."source_id"', '"p"."stack_id"', 'COUNT(*) AS "n_samples"',
    sprintf('MAX(CASE WHEN %s THEN 1 ELSE 0 END) AS "broken"', any_broken)
  )
  outer <- c(
    '"g"."source_id"', 'COUNT(*) AS "n_groups"',
    'SUM(CASE WHEN "t"."stack_id" IS NULL THEN 1 ELSE 0 END) AS "n_unstored"',
    'MAX("g"."broken") AS "broken"'
  )
  joins <- sprintf('LEFT JOIN %s AS "t" ON "t"."stack_id" = "g"."stack_id"', q(p$stacks))
  if (whole_sources) {
    slots <- db_slot_names(slot_count)
    inner <- c(inner, if (length(slots)) paste0("SUM(", q(slots), ") AS ", q(slots)))
    differs <- vapply(slots, function(slot) {
      g <- paste0('"g".', q(slot))
      s <- paste0('"s".', q(slot))
      paste(
        sprintf("(%s IS NULL AND %s IS NOT NULL) OR (%s IS NOT NULL AND %s IS NULL)", g, s, g, s),
        sprintf("OR ABS(%s - %s) > 1e-9 * ABS(%s)", g, s, s)
      )
    }, character(1))
    bad <- paste(c(
      '"s"."source_id" IS NULL', '"g"."n_samples" <> "s"."n_samples"', differs
    ), collapse = " OR ")
    outer <- c(outer, sprintf('SUM(CASE WHEN %s THEN 1 ELSE 0 END) AS "n_bad"', bad))
    joins <- c(joins, sprintf(paste(
      'LEFT JOIN %s AS "s"',
      'ON "s"."source_id" = "g"."source_id" AND "s"."stack_id" = "g"."stack_id"'
    ), q(p$source_stacks)))
  }
  DBI::dbGetQuery(con, paste(
    "SELECT", paste(outer, collapse = ", "), "FROM",
    "(SELECT", paste(inner, collapse = ", "), "FROM", q(p$samples), 'AS "p" WHERE', where,
    'GROUP BY "p"."source_id", "p"."stack_id") AS "g"',
    paste(joins, collapse = " "), 'GROUP BY "g"."source_id"'
  ))
}

# profile_source_stacks, which summaries of whole sources read instead of the
# samples, holds for each source (of those `sources`, a condition on
# profile_samples "p", chooses) and stack the number of its samples and the
# sums of each value slot: the (source, stack) groups of the samples
# (`pass`, from db_samples_pass()) must each match their row, and the
# sources must have as many rows as groups.
db_check_source_stacks <- function(con, pass, sources, call) {
  p <- db_physical
  stored <- DBI::dbGetQuery(con, paste(
    'SELECT COUNT(*) AS "n_rows" FROM', sql_name(con, p$source_stacks), 'AS "s" WHERE',
    gsub('"p"."source_id"', '"s"."source_id"', sources, fixed = TRUE)
  ))
  n_bad <- sum(as.double(pass$n_bad))
  n_groups <- sum(as.double(pass$n_groups))
  if (n_bad > 0 || db_number(stored$n_rows) != n_groups) {
    detail <- if (n_bad > 0) {
      first <- min(as.double(pass$source_id[as.double(pass$n_bad) > 0]))
      sprintf(
        "%s of its (source, stack) rows differ from the samples, the first of source_id %s",
        format_id(n_bad), format_id(first)
      )
    } else {
      sprintf(
        "it has %s rows for %s (source, stack) pairs of samples",
        format_id(db_number(stored$n_rows)), format_id(n_groups)
      )
    }
    abort_profile("invalid", "Invalid v2 profile.", call = call, detail = sprintf(
      "table `%s` does not hold the counts and sums of the samples: %s", p$source_stacks, detail
    ))
  }
}

# Depths 1..n and existing locations in the stored stacks (whose rows are
# reported by the first sample that has the stack): those of the samples
# `where` chooses (a condition on profile_samples "p"), whose locations are
# the profile's.
db_check_stored_stacks <- function(con, location_ids, fail, where = "1 = 1") {
  p <- db_physical
  frames <- if (where == "1 = 1") {
    paste(sql_name(con, p$frames), 'AS "f"')
  } else {
    sprintf(paste(
      '(SELECT * FROM %s WHERE "stack_id" IN',
      '(SELECT "p"."stack_id" FROM %s AS "p" WHERE %s)) AS "f"'
    ), sql_name(con, p$frames), sql_name(con, p$samples), where)
  }
  bad <- DBI::dbGetQuery(con, sprintf(paste(
    'SELECT "stack_id", COUNT(*) AS "n_rows", MIN("depth") AS "lowest", MAX("depth") AS "highest"',
    'FROM %s GROUP BY "stack_id" HAVING MIN("depth") < 1 OR MAX("depth") > COUNT(*) LIMIT 1'
  ), frames))
  first_sample <- function(stack_id) {
    DBI::dbGetQuery(con, sprintf(
      'SELECT MIN("sample_id") AS "sample_id" FROM %s WHERE "stack_id" = %s',
      sql_name(con, p$samples), format_id(stack_id)
    ))$sample_id
  }
  if (nrow(bad)) {
    n <- db_number(bad$n_rows)
    found <- c(bad$lowest, bad$highest)[c(bad$lowest < 1, bad$highest > n)]
    sample <- first_sample(bad$stack_id)
    fail("sample_locations", "depth", sample, sprintf(
      "sample %s has %s frames, so depths must run 1..%s without gaps, found %s",
      format_id(sample), format_id(n), format_id(n), format_id(found[[1L]])
    ))
  }
  used <- DBI::dbGetQuery(con, sprintf(
    'SELECT DISTINCT "location_id" FROM %s', frames
  ))$location_id
  dangling <- setdiff(as_column_type(used, "integer"), location_ids)
  if (length(dangling)) {
    stack <- DBI::dbGetQuery(con, sprintf(
      'SELECT MIN("stack_id") AS "stack_id" FROM %s WHERE "location_id" = %s',
      frames, format_id(dangling[[1L]])
    ))$stack_id
    fail("sample_locations", "location_id", first_sample(stack), sprintf(
      "value %s has no match in `locations`.`location_id`", format_id(dangling[[1L]])
    ))
  }
}

# The rules of the format for the rows of the per-sample tables, as SQL, in
# the order the Rust validator checks them (src/rust/core/src/validate.rs):
# NA, positive and non-negative values, primary keys, foreign keys, unique
# (sample, type) values, stack depths 1..n. Tables have no row order in a
# database, so an offending row is named by its sample_id, not its position.
db_check_per_sample_rows <- function(db, call) {
  fail <- function(table, column, sample_id, message) {
    abort_profile("invalid", "Invalid v2 profile.", call = call, detail = sprintf(
      "table `%s`, column `%s`, a row with sample_id %s: %s",
      table, column, format_id(sample_id), message
    ))
  }
  present <- intersect(names(db), per_sample_tables)
  db_check_column_rules(db, present, fail)
  db_check_keys(db, present, fail)
  if ("sample_values" %in% present) {
    db_check_unique_types(db$sample_values, fail)
  }
  if ("sample_locations" %in% present) {
    db_check_depths(db$sample_locations, fail)
  }
}

# NA, positive ids, non-negative lines: one pass over each table tells which
# rules some row breaks; the first of them in the validator's order is
# reported with a row that breaks it.
db_check_column_rules <- function(db, present, fail) {
  checks <- db_column_rules(db, present)
  broken <- logical(nrow(checks))
  for (t in unique(checks$table)) {
    mine <- which(checks$table == t)
    flags <- vapply(seq_along(mine), function(k) {
      sprintf('MAX(CASE WHEN %s THEN 1 ELSE 0 END) AS "rule_%d"', checks$breaks[[mine[[k]]]], k)
    }, character(1))
    found <- db_query(db[[t]]$con, 'SELECT {flags} FROM {table} AS "t"',
      flags = paste(flags, collapse = ", "), table = db[[t]]
    )
    broken[mine] <- vapply(seq_along(mine), function(k) db_number(found[[k]]) > 0, logical(1))
  }
  if (!any(broken)) {
    return(invisible())
  }
  first <- which(broken)[[1L]]
  t <- checks$table[[first]]
  col <- checks$column[[first]]
  row <- db_query(db[[t]]$con, 'SELECT * FROM {table} AS "t" WHERE {breaks} LIMIT 1',
    table = db[[t]], breaks = checks$breaks[[first]]
  )
  fail(t, col, row$sample_id, checks$message[[first]](row[[col]]))
}

# The rules of single columns of the tables `present` (those of their
# columns `db` has), in the validator's order: `table`, `column`, `breaks`
# (SQL that is true for a row that breaks the rule; the column's name
# unqualified) and `message` (a function of the offending value).
db_column_rules <- function(db, present) {
  schema <- v2_schema()
  rules <- list(
    not_na = list(breaks = "{column} IS NULL", message = function(value) "must not be NA"),
    positive = list(
      breaks = "{column} <= 0",
      message = function(value) paste("must be a positive id, found", format_id(value))
    ),
    non_negative = list(
      breaks = "{column} < 0",
      message = function(value) paste("must be zero (unknown) or positive, found", format_id(value))
    ),
    # a double (a time): infinite is out of range too (and shown as Rust shows it)
    non_negative_double = list(
      breaks = "({column} < 0 OR {column} > 1.7976931348623157e308)",
      message = function(value) {
        shown <- if (is.infinite(value)) ifelse(value > 0, "inf", "-inf") else format_id(value)
        paste("must be a finite number >= 0 or NA, found", shown)
      }
    )
  )
  checks <- do.call(rbind, lapply(intersect(names(rules), names(schema)), function(rule) {
    cols <- schema[[rule]]
    data.frame(rule = rep(rule, length(cols$table)), table = cols$table, column = cols$column)
  }))
  is_double <- vapply(seq_len(nrow(checks)), function(i) {
    spec <- schema$columns[[checks$table[[i]]]]
    identical(spec$col_type[match(checks$column[[i]], spec$name)], "double")
  }, logical(1))
  checks$rule[checks$rule == "non_negative" & is_double] <- "non_negative_double"
  checks <- checks[checks$table %in% present, , drop = FALSE]
  present_columns <- mapply(function(t, col) col %in% db[[t]]$columns, checks$table, checks$column)
  checks <- checks[present_columns, , drop = FALSE]
  checks$breaks <- vapply(seq_len(nrow(checks)), function(i) {
    con <- db[[checks$table[[i]]]]$con
    sql_fill(rules[[checks$rule[[i]]]]$breaks, column = sql_name(con, checks$column[[i]]))
  }, character(1))
  checks$message <- lapply(checks$rule, function(rule) rules[[rule]]$message)
  checks
}

# The primary and foreign keys of the per-sample tables (a foreign key into a
# table the profile does not have is not checked, as in memory).
db_check_keys <- function(db, present, fail) {
  schema <- v2_schema()
  pk <- schema$primary_keys
  for (i in which(pk$table %in% present)) {
    table <- db[[pk$table[[i]]]]
    row <- db_query(table$con,
      'SELECT {column} AS "id" FROM {table} AS "t" GROUP BY {column} HAVING COUNT(*) > 1 LIMIT 1',
      table = table, column = sql_name(table$con, pk$column[[i]])
    )
    if (nrow(row)) {
      fail(
        pk$table[[i]],
        pk$column[[i]],
        row$id,
        sprintf("is the primary key but %s occurs more than once", format_id(row$id))
      )
    }
  }
  fk <- schema$foreign_keys
  for (i in which(fk$table %in% present & fk$ref_table %in% names(db))) {
    child <- db[[fk$table[[i]]]]
    row <- db_query(child$con, paste(
      'SELECT "c"."sample_id" AS "sample_id", "c".{column} AS "id" FROM {child} AS "c"',
      'WHERE "c".{column} IS NOT NULL',
      'AND NOT EXISTS (SELECT 1 FROM {parent} AS "p" WHERE "p".{ref_column} = "c".{column}) LIMIT 1'
    ),
    child = child, parent = db[[fk$ref_table[[i]]]],
    column = sql_name(child$con, fk$column[[i]]),
    ref_column = sql_name(child$con, fk$ref_column[[i]])
    )
    if (nrow(row)) {
      fail(fk$table[[i]], fk$column[[i]], row$sample_id, sprintf(
        "value %s has no match in `%s`.`%s`",
        format_id(row$id),
        fk$ref_table[[i]],
        fk$ref_column[[i]]
      ))
    }
  }
}

db_check_unique_types <- function(values, fail) {
  row <- db_query(values$con, paste(
    'SELECT "sample_id", "type" FROM {values} AS "v"',
    'GROUP BY "sample_id", "type" HAVING COUNT(*) > 1 LIMIT 1'
  ), values = values)
  if (nrow(row)) {
    fail("sample_values", "type", row$sample_id, sprintf(
      '(`sample_id`, `type`) must be unique but (%s, "%s") occurs more than once',
      format_id(row$sample_id), row$type
    ))
  }
}

# Depths run 1..n in each sample: all of them within 1..n and n distinct ones.
db_check_depths <- function(stack, fail) {
  row <- db_query(stack$con, paste(
    'SELECT "sample_id", COUNT(*) AS "n_rows", MIN("depth") AS "lowest", MAX("depth") AS "highest"',
    'FROM {stack} AS "s" GROUP BY "sample_id"',
    'HAVING MIN("depth") < 1 OR MAX("depth") > COUNT(*)',
    'OR COUNT(DISTINCT "depth") < COUNT(*) LIMIT 1'
  ), stack = stack)
  if (!nrow(row)) {
    return(invisible())
  }
  n <- db_number(row$n_rows)
  out_of_range <- c(row$lowest, row$highest)[c(row$lowest < 1, row$highest > n)]
  if (length(out_of_range)) {
    fail("sample_locations", "depth", row$sample_id, sprintf(
      "sample %s has %s frames, so depths must run 1..%s without gaps, found %s",
      format_id(row$sample_id), format_id(n), format_id(n), format_id(out_of_range[[1L]])
    ))
  }
  repeated <- db_query(stack$con, paste(
    'SELECT "depth" FROM {stack} AS "s" WHERE "sample_id" = {sample}',
    'GROUP BY "depth" HAVING COUNT(*) > 1 LIMIT 1'
  ), stack = stack, sample = format_id(row$sample_id))
  fail("sample_locations", "depth", row$sample_id, sprintf(
    "(`sample_id`, `depth`) must be unique but (%s, %s) occurs more than once",
    format_id(row$sample_id), format_id(repeated$depth)
  ))
}
