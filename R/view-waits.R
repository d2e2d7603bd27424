# The lanes of the view's time order: each source's label, and the waits of
# a recording's main process (see R/waits.R for where they come from, and
# "Time order" in ?profile_view), drawn where they happened on the wall
# clock, the process's samples (whose times are CPU time) placed around them.

# The table `waits` of `x`, in memory (NULL when `x` has none).
profile_waits <- function(x) {
  if (!inherits(x, "dm")) {
    return(NULL)
  }
  waits <- dm::dm_get_tables(x, keyed = FALSE)[["waits"]]
  if (is.null(waits)) {
    return(NULL)
  }
  waits <- in_memory(waits)
  waits <- waits[is.finite(waits$start_time) & is.finite(waits$end_time) &
    is.finite(waits$cpu_time), , drop = FALSE]
  if (!nrow(waits)) NULL else waits[order(waits$source_id, waits$cpu_time), , drop = FALSE]
}

# The samples' times of the sources with waits placed around their waits: a
# sample at CPU time t after the k-th wait (of cpu_time at most t) is drawn at
# the end of that wait plus the CPU time since its start (before the first
# wait: at t), in seconds from its source's start. Only the view's times
# change; `samples` is the parts' table (in memory).
place_around_waits <- function(samples, sources, waits) {
  time <- samples[["time"]]
  if (is.null(waits) || !is.double(time)) {
    return(samples)
  }
  for (id in unique(waits$source_id)) {
    stamp <- sources$source_timestamp[match(id, sources$source_id)]
    rows <- which(samples$source_id == id & !is.na(time))
    if (!length(rows) || !is.finite(stamp)) next
    w <- waits[waits$source_id == id, , drop = FALSE]
    t <- time[rows]
    k <- findInterval(t, w$cpu_time)
    after <- k > 0L
    t[after] <- (w$end_time[k[after]] - stamp) + (t[after] - w$cpu_time[k[after]])
    time[rows] <- t
  }
  samples$time <- time
  samples
}

# The waits as the view's JSON field `waits`: per wait its source, start and
# end on the view's axis (seconds after the earliest source's start), label
# ("waiting for workers" when another source of the profile ran a task or
# its recording during it, else "waiting") and what it waited for. NULL when
# there is none.
view_waits_json <- function(waits, sources, tasks) {
  if (is.null(waits)) {
    return(NULL)
  }
  stamps <- as.double(sources$source_timestamp)
  origin <- min(stamps[is.finite(stamps)])
  if (!is.finite(origin)) {
    return(NULL)
  }
  spans <- busy_spans(sources, tasks)
  names <- source_lane_labels(sources)
  detail <- character(nrow(waits))
  for (i in seq_len(nrow(waits))) {
    during <- spans[spans$source_id != waits$source_id[[i]] &
      spans$start < waits$end_time[[i]] & spans$end > waits$start_time[[i]], , drop = FALSE]
    if (!nrow(during)) next
    n <- table(factor(during$source_id, levels = unique(during$source_id)))
    what <- ifelse(during$task[match(names(n), during$source_id)],
      paste0(" (", n, ifelse(n == 1L, " task)", " tasks)")), ""
    )
    who <- names[match(as.integer(names(n)), sources$source_id)]
    detail[[i]] <- paste0("while ", paste0(who, what, collapse = ", "), " ran")
  }
  label <- ifelse(nzchar(detail), "waiting for workers", "waiting")
  paste0(
    "\"waits\":{\"source\":[", paste(waits$source_id, collapse = ","),
    "],\"start\":[", paste(json_number(waits$start_time - origin), collapse = ","),
    "],\"end\":[", paste(json_number(waits$end_time - origin), collapse = ","),
    "],\"label\":[", paste(json_string(label), collapse = ","),
    "],\"detail\":[", paste(json_string(as_valid_utf8(detail)), collapse = ","), "]}"
  )
}

# When the sources were busy on the wall clock: their tasks (`tasks`), and
# for sources without tasks their run (`source_timestamp` and
# `duration_nanos`, where known). `task` says which.
busy_spans <- function(sources, tasks) {
  tasks <- in_memory(tasks)
  from_tasks <- data.frame(
    source_id = as.integer(tasks$source_id), start = as.double(tasks$start_time),
    end = as.double(tasks$end_time)
  )
  from_tasks$end[is.na(from_tasks$end)] <- Inf
  nanos <- sources[["duration_nanos"]]
  rest <- sources[!sources$source_id %in% from_tasks$source_id, , drop = FALSE]
  stamp <- as.double(rest$source_timestamp)
  duration <- if (is.null(nanos)) NA_real_ else as.double(rest$duration_nanos) / 1e9
  runs <- data.frame(source_id = as.integer(rest$source_id), start = stamp, end = stamp + duration)
  runs <- runs[is.finite(runs$start) & is.finite(runs$end), , drop = FALSE]
  from_tasks$task <- rep(TRUE, nrow(from_tasks))
  runs$task <- rep(FALSE, nrow(runs))
  rbind(from_tasks, runs)
}

# A table of a profile as a data frame (one in a database collected).
in_memory <- function(table) {
  if (is.null(table)) {
    return(NULL)
  }
  if (inherits(table, "tbl_lazy")) table <- dplyr::collect(table)
  as.data.frame(table)
}

# A source's label in the view: its process (`process_role` and `process_id`,
# where the sources say so), then its label, else its file's name, else its
# id.
source_lane_labels <- function(sources) {
  column <- function(name) {
    v <- sources[[name]]
    if (is.null(v)) rep(NA_character_, nrow(sources)) else as.character(v)
  }
  uri <- column("source_uri")
  name <- column("source_label")
  name[is.na(name) & !is.na(uri)] <- basename(uri[is.na(name) & !is.na(uri)])
  name[is.na(name)] <- paste("source", sources$source_id[is.na(name)])
  role <- column("process_role")
  pid <- column("process_id")
  process <- trimws(paste(ifelse(is.na(role), "", role), ifelse(is.na(pid), "", paste("pid", pid))))
  # (the process says something only where the sources are of several
  # processes: two recordings of one R session are told by their labels)
  if (length(unique(paste(pid, column("host_name"))[!is.na(pid)])) < 2L) process[] <- ""
  types <- unique(sources$source_type)
  if (length(types) > 1L) name <- paste0(name, " (", sources$source_type, ")")
  # (not ifelse(): of no sources it gives a logical vector)
  with_process <- nzchar(process)
  name[with_process] <- paste0(process[with_process], ": ", name[with_process])
  name
}
