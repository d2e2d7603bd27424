# profile_summary(x, by = "process"): one row per source of the profile (a
# process of a parallel recording, a run of a combined profile or of a
# database), its value the sum of its samples' values of the type. (by =
# "source" is a source file, as go tool pprof -files, and stays so.)

# The rows of a summary by process: source_id, label, self = total (a
# sample belongs to one source), and the grand total, for the type `type`
# (see choose_sample_type()).
process_totals <- function(parts, type, call = rlang::caller_env()) {
  sources <- parts$sources
  ids <- as.integer(sources$source_id)
  per_source <- if (is_db_stacks(parts$values)) {
    db_stacks_sum(parts, type, "source_id")
  } else if (is_db_table(parts$values)) {
    db_source_totals(parts, type, call)
  } else {
    memory_source_totals(parts, type)
  }
  # (a source without the type: no row, or a NULL sum in a database)
  per_source <- per_source[!is.na(per_source$value), , drop = FALSE]
  value <- numeric(length(ids))
  row <- match(as.integer(per_source$source_id), ids)
  value[row[!is.na(row)]] <- as.double(per_source$value[!is.na(row)])
  groups <- tibble::tibble(source_id = ids, label = process_labels(sources))
  list(groups = groups, self_value = value, total = value, grand_total = sum(value))
}

# A source's name in the summary: its process ("main 1234 on host") where
# sources has process_role and process_id, else its label, else its file
# (source_uri), else its type and id.
process_labels <- function(sources) {
  n <- nrow(sources)
  column <- function(name) {
    v <- sources[[name]]
    if (is.null(v)) rep(NA_character_, n) else as_valid_utf8(as.character(v))
  }
  role <- column("process_role")
  pid <- column("process_id")
  host <- column("host_name")
  process <- ifelse(is.na(role) | is.na(pid), NA_character_, paste(role, pid))
  process <- ifelse(is.na(process) | is.na(host), process, paste(process, "on", host))
  type <- column("source_type")
  # a process with several sources (time and allocations): say which
  process <- ifelse(is.na(process), NA_character_, paste0(process, " (", type, ")"))
  label <- process
  for (other in list(column("source_label"), column("source_uri"))) {
    label <- ifelse(is.na(label) & !is.na(other) & nzchar(other), other, label)
  }
  ifelse(is.na(label), paste(type, sources$source_id), label)
}

# Per source, the sum of the values of type `type` of the samples in
# `samples` (of a derived type, those of the type it comes from times each
# source's factor).
memory_source_totals <- function(parts, type) {
  values <- parts$values
  derived <- parts$derived
  factor_of <- NULL
  if (!is.null(derived) && identical(type, derived$type)) {
    type <- derived$from
    factor_of <- derived
  }
  chosen <- as.character(values$type) == type
  source <- parts$samples$source_id[match(values$sample_id[chosen], parts$samples$sample_id)]
  value <- as.double(values$value[chosen])
  if (!is.null(factor_of)) {
    value <- value * factor_of$factor[match(source, factor_of$source_id)]
  }
  keep <- !is.na(source) & !is.na(value)
  if (!any(keep)) {
    return(data.frame(source_id = integer(), value = numeric()))
  }
  sums <- tapply(value[keep], source[keep], sum)
  data.frame(source_id = as.integer(names(sums)), value = as.double(sums))
}

# The same in a database of one row per sample value (see db_values_of_type()).
db_source_totals <- function(parts, type, call) {
  values <- db_values_of_type(parts, type, "Can't summarise the profile.", call)
  db_query(parts$values$con, paste(
    'SELECT "s"."source_id", SUM("c"."value") AS "value" FROM {chosen} AS "c"',
    'INNER JOIN {samples} AS "s" ON "c"."sample_id" = "s"."sample_id"',
    'GROUP BY "s"."source_id"'
  ), chosen = values$chosen, samples = parts$samples_db)
}
