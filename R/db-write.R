# Writing a database-backed profile: aggregated in the database, collected in
# batches of sources (see R/db.R).

# ---------------------------------------------------------------------------
# Writing

# What the writers get for a database-backed profile: after validation (as
# the writers validate in memory), the profile in memory with one sample per
# distinct source, stack and label set, its summable values added up. Gauges
# (heap sizes at a tick) cannot be added up and are left out; per-sample
# columns such as `samples$time` become NA.
profile_for_writing <- function(x, call = rlang::caller_env()) {
  if (!is_db_profile(x)) {
    return(x)
  }
  validate_db(x, call = call)
  tables <- db_profile_tables(x, call = call)
  local <- tables$local
  db <- tables$db
  con <- db$samples$con
  labelled <- "sample_labels" %in% names(db)
  if (labelled) {
    label_sets <- db_label_sets(db$sample_labels)
    labels_join <- sql_fill(
      'LEFT JOIN ({sets}) AS "l" ON "s"."sample_id" = "l"."sample_id"',
      sets = label_sets$sets
    )
    labels <- '"l"."labels"'
  } else {
    labels_join <- ""
    labels <- "CAST(NULL AS TEXT)"
  }
  stacks <- db_stack_source(x)
  rows <- if (is.null(stacks)) {
    gauges <- paste(sql_string(con, v2_schema()$gauge_types), collapse = ", ")
    db_query(con, paste(
      'SELECT "p"."source_id", "p"."stack", "p"."labels", "v"."type", "v"."unit",',
      'SUM("v"."value") AS "value", MIN("p"."sample_id") AS "first_sample" FROM',
      '(SELECT "s"."sample_id", "s"."source_id", "t"."stack", {labels} AS "labels"',
      'FROM {samples} AS "s"',
      'LEFT JOIN ({stacks}) AS "t" ON "s"."sample_id" = "t"."sample_id" {labels_join}) AS "p"',
      'LEFT JOIN (SELECT * FROM {values} AS "w" WHERE "type" NOT IN ({gauges})) AS "v"',
      'ON "p"."sample_id" = "v"."sample_id"',
      'GROUP BY "p"."source_id", "p"."stack", "p"."labels", "v"."type", "v"."unit"'
    ),
    labels = labels, samples = db$samples, stacks = db_stack_signatures(db$sample_locations),
    labels_join = labels_join, values = db$sample_values, gauges = gauges
    )
  } else {
    db_layout_rows_for_writing(stacks, labels, sub('"s".', '"p".', labels_join, fixed = TRUE))
  }
  rows$source_id <- as_column_type(rows$source_id, "integer")
  aggregated <- aggregated_sample_tables(rows, local)
  if (labelled) {
    aggregated$sample_labels <- label_rows_of_sets(
      aggregated$label_sets, label_sets$dictionary, local$sample_labels
    )
  }
  for (t in intersect(names(local), per_sample_tables)) {
    local[[t]] <- as_schema_types(aggregated[[t]], t)
  }
  dm_from_v2_tables(local)
}

# Writes a database-backed profile with `write` (a writer of a format whose
# files are the concatenation of one part per source, such as Rprof's
# segments) a batch of sources at a time: each batch of at most
# `batch_samples` samples (or one source) is collected and written to a part,
# the parts are appended to a file next to `path` that then replaces it.
write_by_sources <- function(x, path, write, batch_samples = 1e6, call = rlang::caller_env()) {
  validate_db(x, call = call)
  tables <- db_profile_tables(x, call = call)
  counts <- db_query(tables$db$samples$con,
    'SELECT "source_id", COUNT(*) AS "n_samples" FROM {samples} AS "s" GROUP BY "source_id"',
    samples = tables$db$samples
  )
  sources <- tables$local$sources$source_id
  n_samples <- as.double(counts$n_samples)[match(sources, counts$source_id)]
  n_samples[is.na(n_samples)] <- 0
  batch <- source_batches(n_samples, batch_samples)
  out <- tempfile(pattern = paste0(".", basename(path), "-"), tmpdir = dirname(path))
  part <- tempfile()
  on.exit(unlink(c(out, part)))
  if (!file.create(out, showWarnings = FALSE)) {
    abort_profile(
      "io", "Can't create a file in the directory of {.file {path}}.",
      path = path, call = call
    )
  }
  # (a profile without sources is written as the writer writes an empty
  # profile, e.g. Rprof's header alone, not as an empty file)
  batches <- if (length(sources)) split(sources, batch) else list(integer())
  for (ids in batches) {
    batch_profile <- local_profile(dm::dm_filter(x, sources = .data$source_id %in% !!ids))
    write(with_inlined_targets(batch_profile, tables$local), part)
    file.append(out, part)
  }
  if (file.exists(path)) {
    Sys.chmod(out, file.mode(path))
  }
  if (!file.rename(out, path)) {
    abort_profile("io", "Can't replace {.file {path}}.", path = path, call = call)
  }
}

# dm_filter() follows only the keys that the dm records, and
# `locations.inlined_into` is not one of them (see dm_recorded_fks()): a
# location that samples reach only as the line an inlined frame is inlined
# into is filtered out, and the part would not validate. Puts those locations
# back from the whole profile's dictionary tables (`whole`, in memory), with
# the rows that refer to them (their attributes) and that they refer to
# (their functions and mappings).
with_inlined_targets <- function(part, whole) {
  tables <- dm::dm_get_tables(part, keyed = FALSE)
  locations <- whole$locations
  if (is.null(locations$inlined_into)) {
    return(part)
  }
  kept <- tables$locations$location_id
  repeat {
    targets <- locations$inlined_into[locations$location_id %in% kept]
    more <- setdiff(targets[!is.na(targets)], kept)
    if (!length(more)) break
    kept <- c(kept, more)
  }
  if (length(kept) == nrow(tables$locations)) {
    return(part)
  }
  tables$locations <- locations[locations$location_id %in% kept, , drop = FALSE]
  rows_of <- function(table, column, ids) {
    rows <- whole[[table]]
    if (is.null(rows)) NULL else rows[rows[[column]] %in% ids, , drop = FALSE]
  }
  tables$functions <- rows_of(
    "functions", "function_id", c(tables$functions$function_id, tables$locations$function_id)
  )
  mapping_ids <- c(tables$mappings$mapping_id, tables$locations$mapping_id)
  tables$mappings <- rows_of("mappings", "mapping_id", mapping_ids)
  for (t in intersect(c("location_attributes", "mapping_attributes"), names(tables))) {
    key <- if (t == "location_attributes") "location_id" else "mapping_id"
    ids <- if (t == "location_attributes") kept else mapping_ids
    tables[[t]] <- rows_of(t, key, ids)
  }
  dm_from_v2_tables(tables)
}

# Consecutive sources in batches of at most `limit` samples (a larger source
# alone): the batch of each source.
source_batches <- function(n_samples, limit) {
  batch <- integer(length(n_samples))
  current <- 1L
  filled <- 0
  for (i in seq_along(n_samples)) {
    if (filled > 0 && filled + n_samples[[i]] > limit) {
      current <- current + 1L
      filled <- 0
    }
    batch[[i]] <- current
    filled <- filled + n_samples[[i]]
  }
  batch
}

# The per-sample tables of the aggregated profile from the grouped rows (one
# per source, stack, label set and sample type): samples numbered in order of
# their first sample in the database, values in the order of their source's
# declared sample types.
aggregated_sample_tables <- function(rows, local) {
  groups <- rows[c("source_id", "stack", "labels")]
  group <- vctrs::vec_group_id(groups)
  first <- vapply(split(as.double(rows$first_sample), group), min, numeric(1))
  new_id <- integer(length(first))
  new_id[order(first)] <- seq_along(first)
  sample_id <- new_id[group]
  heads <- !duplicated(group)
  order_of_samples <- order(sample_id[heads])
  samples <- with_columns_of(local$samples, list(
    sample_id = sample_id[heads][order_of_samples],
    source_id = as.integer(rows$source_id[heads][order_of_samples])
  ))
  has_value <- !is.na(rows$type)
  declared <- local[["sample_types"]]
  position <- if (is.null(declared)) {
    rep(NA_integer_, sum(has_value))
  } else {
    vctrs::vec_match(
      data.frame(source_id = as.integer(rows$source_id[has_value]), type = rows$type[has_value]),
      data.frame(source_id = declared$source_id, type = declared$type)
    )
  }
  value_order <- order(sample_id[has_value], position, rows$type[has_value], method = "radix")
  sample_values <- with_columns_of(local$sample_values, list(
    sample_id = sample_id[has_value][value_order],
    type = rows$type[has_value][value_order],
    unit = rows$unit[has_value][value_order],
    value = as.double(rows$value[has_value][value_order])
  ))
  stacks <- stack_rows_of_signatures(rows$stack[heads][order_of_samples])
  list(
    samples = samples,
    sample_values = sample_values,
    sample_locations = with_columns_of(local$sample_locations, as.list(stacks)),
    label_sets = rows$labels[heads][order_of_samples]
  )
}

# The rows of sample_labels of label sets written by db_label_sets(): sample i
# has the labels numbered in sets[i] (NA: none).
label_rows_of_sets <- function(sets, dictionary, template) {
  # (as for stacks, stack_rows_of_signatures(): no rows may come as logical)
  sets <- as.character(sets)
  sets[is.na(sets)] <- ""
  numbers <- strsplit(sets, ",", fixed = TRUE)
  label_id <- as.integer(unlist(numbers, use.names = FALSE))
  columns <- setdiff(names(dictionary), "label_id")
  rows <- dictionary[match(label_id, dictionary$label_id), columns, drop = FALSE]
  with_columns_of(
    template, c(list(sample_id = rep(seq_along(sets), lengths(numbers))), as.list(rows))
  )
}

# A table with the columns of `template` (a table with no rows): those in
# `columns`, the others NA.
with_columns_of <- function(template, columns) {
  n <- length(columns[[1L]])
  out <- lapply(names(template), function(col) {
    if (!is.null(columns[[col]])) columns[[col]] else vctrs::vec_init(template[[col]], n)
  })
  names(out) <- names(template)
  tibble::new_tibble(out, nrow = n)
}

# The grouped rows of profile_for_writing() from the layout's tables: values
# summed per source, stack id, label set and value slot in the database, in
# the long form of the query over the views (one row per group and summable
# type; a group without values has one row of type NA), stacks as text.
db_layout_rows_for_writing <- function(stacks, labels, labels_join) {
  con <- stacks$con
  p <- db_physical
  n_slots <- db_slot_count(db_columns(con, p$samples))
  slot_names <- db_slot_names(n_slots)
  quoted <- sql_name(con, slot_names)
  sums <- paste(sprintf('SUM("p".%s) AS %s', quoted, quoted), collapse = ", ")
  grouped <- DBI::dbGetQuery(con, sprintf(paste(
    'SELECT "p"."source_id" AS "source_id", "p"."stack_id" AS "stack_id", %s AS "labels", %s,',
    'MIN("p"."sample_id") AS "first_sample" FROM %s AS "p" %s WHERE %s',
    'GROUP BY "p"."source_id", "p"."stack_id", %s'
  ), labels, sums, sql_name(con, p$samples), labels_join, stacks$where, labels))
  grouped$source_id <- as_column_type(grouped$source_id, "integer")
  stack_id <- as_column_type(grouped$stack_id, "integer")
  ids <- sort(unique(stack_id))
  frames <- db_stack_frames(con, ids)
  frames <- frames[order(frames$stack_id, frames$depth, method = "radix"), , drop = FALSE]
  # (paste0() of no frames would give one ":")
  entries <- if (nrow(frames)) paste0(frames$depth, ":", frames$location_id) else character()
  text <- vapply(split(entries, factor(frames$stack_id, levels = ids)),
    paste, character(1),
    collapse = ",", USE.NAMES = FALSE
  )
  text[text == ""] <- NA_character_
  stack <- text[match(stack_id, ids)]
  slots <- db_slots(con)
  slots <- slots[!slots$type %in% v2_schema()$gauge_types, , drop = FALSE]
  by_source <- split(seq_len(nrow(grouped)), grouped$source_id)
  pieces <- lapply(seq_len(nrow(slots)), function(i) {
    r <- by_source[[as.character(slots$source_id[[i]])]]
    value <- as.double(grouped[[paste0("value_", slots$slot[[i]])]][r])
    r <- r[!is.na(value)]
    data.frame(
      row = r, type = rep(slots$type[[i]], length(r)), unit = rep(slots$unit[[i]], length(r)),
      value = value[!is.na(value)]
    )
  })
  none <- data.frame(row = integer(), type = character(), unit = character(), value = double())
  long <- do.call(rbind, c(list(none), pieces))
  empty <- setdiff(seq_len(nrow(grouped)), long$row)
  long <- rbind(long, data.frame(
    row = empty, type = rep(NA_character_, length(empty)),
    unit = rep(NA_character_, length(empty)), value = rep(NA_real_, length(empty))
  ))
  data.frame(
    source_id = grouped$source_id[long$row], stack = stack[long$row],
    labels = grouped$labels[long$row], type = long$type, unit = long$unit, value = long$value,
    first_sample = as.double(grouped$first_sample)[long$row],
    stringsAsFactors = FALSE
  )
}
