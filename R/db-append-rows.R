# The rows of the layout's own tables (R/db-layout.R) that an append adds:
# stacks found or added by their frames, value types and slots, the samples
# with their stack ids and values, and the per-source, per-stack sums.

# What an append computes before it starts its transaction: the distinct
# stacks of the combined profile (`frames`, location ids of the combined
# profile, concatenated; `lengths`), the stack of each sample (`stack`, in
# the order of `samples`), each source's value slots (`slots`: `source_id`,
# `slot`, `type`, `unit`; numbered by first appearance in the source's
# samples) and the values in them (`values`, a matrix of a row per sample and
# a column per slot, NA where a sample has no value of the slot's type).
db_prepared_rows <- function(tables) {
  samples <- tables$samples
  n <- nrow(samples)
  frames <- tables$sample_locations
  frames <- frames[order(frames$sample_id, frames$depth, method = "radix"), , drop = FALSE]
  row <- match(frames$sample_id, samples$sample_id)
  per_sample <- split(frames$location_id, factor(row, levels = seq_len(n)))
  signature <- vapply(per_sample, paste, character(1), collapse = ",", USE.NAMES = FALSE)
  stack <- vctrs::vec_group_id(signature)
  first <- !duplicated(stack)
  distinct <- per_sample[first][order(stack[first])]

  values <- tables$sample_values
  value_row <- match(values$sample_id, samples$sample_id)
  source_id <- samples$source_id[value_row]
  keys <- data.frame(source_id = source_id, type = values$type, unit = values$unit)
  pair <- vctrs::vec_group_id(keys)
  heads <- !duplicated(pair)
  slots <- keys[heads, , drop = FALSE]
  slots <- slots[order(pair[heads]), , drop = FALSE]
  slots$slot <- stats::ave(seq_len(nrow(slots)), slots$source_id, FUN = seq_along)
  n_slots <- if (nrow(slots)) max(slots$slot) else 0L
  matrix <- matrix(NA_real_, n, n_slots)
  matrix[cbind(value_row, slots$slot[pair])] <- values$value
  list(
    frames = unlist(distinct, use.names = FALSE), lengths = lengths(distinct),
    stack = as.integer(stack), slots = slots, values = matrix, n_slots = as.integer(n_slots)
  )
}

# The rows of the layout's tables for an append: the value types and slots
# new to the database, the stacks new to it (found by their frames) and the
# samples with their stack ids and values.
db_layout_rows <- function(con, tables, prepared, new_ids, location_ids) {
  p <- db_physical
  # value types: each (type, unit) once
  types <- as_schema_types(DBI::dbReadTable(con, p$types), "sample_values")
  types$type_id <- as_column_type(types$type_id, "integer")
  slots <- prepared$slots
  found <- vctrs::vec_match(slots[c("type", "unit")], types[c("type", "unit")])
  new_types <- vctrs::vec_unique(slots[is.na(found), c("type", "unit"), drop = FALSE])
  new_types$type_id <- as.integer(max(c(0, types$type_id)) + seq_len(nrow(new_types)))
  types <- rbind(types[c("type_id", "type", "unit")], new_types[c("type_id", "type", "unit")])
  slot_rows <- data.frame(
    source_id = new_ids$sources(slots$source_id), slot = as.integer(slots$slot),
    type_id = types$type_id[vctrs::vec_match(slots[c("type", "unit")], types[c("type", "unit")])]
  )
  stacks <- db_stack_ids(con, prepared, location_ids)
  samples <- tables$samples
  samples$stack_id <- stacks$ids[prepared$stack]
  if (prepared$n_slots) {
    values <- as.data.frame(prepared$values)
    names(values) <- db_slot_names(prepared$n_slots)
    samples <- cbind(as.data.frame(samples), values)
  }
  rows <- list(
    types = new_types[c("type_id", "type", "unit")], slots = slot_rows,
    stacks = stacks$new_stacks, frames = stacks$new_frames, samples = samples,
    source_stacks = db_source_stack_rows(samples, prepared$n_slots)
  )
  names(rows) <- unlist(p[names(rows)])
  rows
}

# The rows of profile_source_stacks of the rows of profile_samples `samples`:
# per source and stack, the number of samples and the sums of each slot (NA
# where none of them has a value in it).
db_source_stack_rows <- function(samples, n_slots) {
  key <- data.frame(source_id = samples$source_id, stack_id = samples$stack_id)
  group <- vctrs::vec_group_id(key)
  out <- key[!duplicated(group), , drop = FALSE]
  out <- out[order(unique(group)), , drop = FALSE]
  out$n_samples <- tabulate(group, nbins = nrow(out))
  for (name in db_slot_names(n_slots)) {
    v <- samples[[name]]
    sums <- rowsum(ifelse(is.na(v), 0, v), group, reorder = TRUE)[, 1L]
    any_value <- rowsum(as.integer(!is.na(v)), group, reorder = TRUE)[, 1L] > 0
    out[[name]] <- ifelse(any_value, unname(sums), NA_real_)
  }
  rownames(out) <- NULL
  out
}

# The database's id of each distinct stack of an append (`ids`) and the rows
# of the stacks new to it: stacks are looked up by their frames (the
# database's location ids, innermost first, as text), a batch at a time.
db_stack_ids <- function(con, prepared, location_ids) {
  frames <- location_ids[prepared$frames]
  stack_of_frame <- rep(seq_along(prepared$lengths), prepared$lengths)
  text <- vapply(split(frames, factor(stack_of_frame, levels = seq_along(prepared$lengths))),
    paste, character(1),
    collapse = ",", USE.NAMES = FALSE
  )
  ids <- rep(NA_integer_, length(text))
  batch <- cumsum(nchar(text) + 4) %/% 2e5
  for (b in split(seq_along(text), batch)) {
    stored <- DBI::dbGetQuery(con, sprintf(
      'SELECT "stack_id", "frames" FROM %s WHERE "frames" IN (%s)',
      sql_name(con, db_physical$stacks), paste(sql_string(con, text[b]), collapse = ", ")
    ))
    ids[b] <- as_column_type(stored$stack_id, "integer")[match(text[b], stored$frames)]
  }
  new <- which(is.na(ids))
  largest <- DBI::dbGetQuery(con, sprintf(
    'SELECT MAX("stack_id") AS "largest" FROM %s', sql_name(con, db_physical$stacks)
  ))
  ids[new] <- as.integer(db_number(largest$largest) + seq_along(new))
  in_new <- stack_of_frame %in% new
  depth <- sequence(prepared$lengths)
  list(
    ids = ids,
    new_stacks = data.frame(
      stack_id = ids[new], frames = text[new], n_frames = as.integer(prepared$lengths[new])
    ),
    new_frames = data.frame(
      stack_id = ids[stack_of_frame[in_new]], depth = as.integer(depth[in_new]),
      location_id = as.integer(frames[in_new])
    )
  )
}
