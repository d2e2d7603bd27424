# profile_record() of parallel code: the folder where the recording's worker
# processes write their Rprof files and task logs, the environment that
# leads them there, and the combined profile with one source per process.
#
# The folder holds settings.dcf (the recording's settings, which workers
# read), startup.R (see write_worker_startup()), and per process (named by a
# token, "PID-MICROSECONDS", or "main"): process-TOKEN.dcf (its id, host and
# role), rprof-TOKEN.out (its samples), tasks-TOKEN.tsv (see
# log_task_event()) and, once a process profiled from its start has stopped
# its profiler, done-TOKEN (see worker_profiler_start()).

# Where the recording's files go: `file` NULL (temporary files), the path
# of the main process's Rprof file (the workers' files are not kept), or an
# existing folder, which keeps one Rprof file per process.
recording_folder <- function(file) {
  if (rlang::is_string(file) && !is.na(file) && nzchar(file) && dir.exists(file)) {
    return(list(main = file.path(file, "rprof-main.out"), dir = file))
  }
  list(main = file, dir = NULL)
}

# Makes the folder, points the environment to it and starts the profilers
# of the clusters given; returns what finish_workers() and read_workers()
# need. `dir` is the folder of `file =` (kept), or NULL for a temporary one.
start_workers <- function(recording, workers, dir, flags, allocations = NULL, threshold = 0,
                          call = rlang::caller_env()) {
  clusters <- check_workers(workers, call)
  state <- new.env(parent = emptyenv())
  state$temporary <- is.null(dir)
  state$dir <- if (is.null(dir)) tempfile("profile-workers-") else dir
  dir.create(state$dir, showWarnings = FALSE, recursive = TRUE)
  write.dcf(data.frame(
    interval = recording$interval, memory = flags$memory, line = flags$line,
    gc = flags$gc, main_pid = Sys.getpid(), main_file = recording$path,
    allocations = !is.null(allocations), threshold = threshold
  ), file.path(state$dir, "settings.dcf"))
  # a forked child points the recording's files to /dev/null as it starts
  # (src/rust/src/record.rs): the allocation profiler keeps running in a
  # fork, which would write into the main process's file
  ffi_detach_on_fork(c(recording$path, allocations$path))
  describe_process(state$dir, "main", "main")
  state$env <- Sys.getenv(c(workers_env_var, "R_PROFILE_USER"), unset = NA)
  startup <- write_worker_startup(state$dir, state$env[["R_PROFILE_USER"]])
  Sys.setenv(PROFILE_RECORD_WORKERS = state$dir, R_PROFILE_USER = startup)
  state$clusters <- clusters
  state$running <- TRUE
  start_cluster_profilers(clusters, state$dir)
  state
}

# Stops the profilers of the clusters given and sets the environment back
# (once); with `remove`, removes a temporary folder, or the files of a kept
# one that are not Rprof files.
finish_workers <- function(state, remove = TRUE) {
  if (state$running) {
    state$running <- FALSE
    ffi_detach_on_fork(character())
    restore_env(state$env)
    stop_cluster_profilers(state$clusters)
  }
  if (remove) {
    if (state$temporary) {
      unlink(state$dir, recursive = TRUE)
    } else {
      pattern <- "^(settings|process-.*)[.]dcf$|^startup[.]R$|^tasks-.*[.]tsv$|^done-"
      kept <- list.files(state$dir, pattern = pattern)
      unlink(file.path(state$dir, kept))
    }
  }
}

restore_env <- function(values) {
  for (name in names(values)) {
    if (is.na(values[[name]])) Sys.unsetenv(name) else do.call(Sys.setenv, as.list(values[name]))
  }
}

# The processes of the recording described in its folder, main first: token,
# pid, host, role, profiled (see describe_process()).
recorded_processes <- function(dir) {
  files <- list.files(dir, pattern = "^process-.*[.]dcf$", full.names = TRUE)
  rows <- lapply(files, function(f) as.data.frame(read.dcf(f), stringsAsFactors = FALSE))
  processes <- do.call(rbind, rows)
  processes$pid <- as.integer(processes$pid)
  processes[order(processes$role != "main", processes$pid), , drop = FALSE]
}

# Waits (up to `timeout` seconds) until the Rprof file of every worker process
# of the recording in `dir` is complete: that of a process profiled from its
# start once the process has stopped its profiler and said so (a file
# `done-TOKEN`, see worker_profiler_start(): a stopped PSOCK cluster's workers
# end a moment after stopCluster() returns), that of a process profiled
# during its tasks once its tasks have ended; either also once the process
# has ended (it was killed). A process on another host is not waited for.
# Returns whether every file was complete before the timeout.
wait_for_workers <- function(processes, dir, timeout = 2) {
  host <- Sys.info()[["nodename"]]
  waited <- processes[processes$role == "worker" & processes$host == host, , drop = FALSE]
  deadline <- Sys.time() + timeout
  repeat {
    pending <- !vapply(seq_len(nrow(waited)), function(i) {
      worker_file_complete(waited[i, ], dir)
    }, logical(1))
    waited <- waited[pending, , drop = FALSE]
    if (!nrow(waited) || Sys.time() >= deadline) {
      return(invisible(!nrow(waited)))
    }
    Sys.sleep(0.005)
  }
}

# Whether the Rprof file of the worker `p` (a row of recorded_processes()) is
# complete (see wait_for_workers()).
worker_file_complete <- function(p, dir) {
  if (!process_alive(p$pid)) {
    return(TRUE)
  }
  if (identical(p$profiled, "process")) {
    return(file.exists(file.path(dir, paste0("done-", p$token))))
  }
  log <- file.path(dir, paste0("tasks-", p$token, ".tsv"))
  if (!file.exists(log)) {
    return(TRUE)
  }
  events <- vapply(strsplit(readLines(log, warn = FALSE), "\t"), `[`, "", 2L)
  sum(events == "start") == sum(events != "start")
}

# Whether the process `pid` (on this host) runs: a process that has ended but
# is not yet reaped by its parent (a zombie, state "Z" in /proc, where there
# is one) does not.
process_alive <- function(pid) {
  if (!isTRUE(tools::pskill(pid, 0L))) {
    return(FALSE)
  }
  stat <- file.path("/proc", pid, "stat")
  if (!file.exists(stat)) {
    return(TRUE)
  }
  line <- tryCatch(readLines(stat, warn = FALSE), error = function(e) character())
  # the state follows the command's name, in parentheses (which may hold any
  # character)
  state <- sub("^.*[)] ([A-Za-z]).*$", "\\1", line[1L])
  !identical(state, "Z")
}

# The recording `main` (the main process's profile, see read_recording())
# combined with the profiles of the worker processes of the folder: one source
# per process, with its process id, host and role, and the table tasks.
read_workers <- function(main, state) {
  processes <- recorded_processes(state$dir)
  wait_for_workers(processes, state$dir)
  # (the main process's warning that it took no sample is kept for the end:
  # it holds only when no worker took one either)
  no_samples <- NULL
  main <- withCallingHandlers(main, profile_warning_no_samples = function(w) {
    no_samples <<- w
    invokeRestart("muffleWarning")
  })
  parts <- list()
  for (i in seq_len(nrow(processes))) {
    parts <- c(parts, process_parts(main, state, processes[i, ]))
  }
  if (length(parts) == 1L && !nrow(parts[[1L]]$tasks)) {
    # a recording of one process, without tasks: no tables tasks and waits
    parts[[1L]]$tasks <- NULL
    parts[[1L]]$waits <- NULL
  }
  if (!is.null(no_samples) && sum(vapply(parts, function(p) nrow(p$samples), 1L)) == 0L) {
    warning(no_samples)
  }
  parts <- lapply(parts, dm_from_v2_tables)
  if (length(parts) == 1L) {
    return(parts[[1L]])
  }
  do.call(combine_profiles, parts)
}

# The tables of the sources of the process `p` of the recording (the main
# process's profile `main`, or a worker's files, its time and its
# allocations), each with the process's columns: a list of 0 to 2.
process_parts <- function(main, state, p) {
  tasks <- read_task_log(state$dir, p)
  if (p$role == "main") {
    tables <- dm::dm_get_tables(main, keyed = FALSE)
    return(list(process_part(tables, p, tasks, state$recording$waits)))
  }
  tables <- read_worker_rprof(state, p, tasks)
  if (is.null(tables)) {
    return(list())
  }
  allocations <- read_worker_rprofmem(state, p, tables$functions)
  c(
    list(process_part(tables, p, tasks)),
    if (!is.null(allocations)) list(process_part(allocations, p))
  )
}

# The tables of a process's sources with the process's columns (see
# recorded_processes()), its tasks and its waits (tables `tasks` and `waits`,
# empty without them; only the main process's waits are watched).
process_part <- function(tables, process, tasks = NULL, waits = NULL) {
  tables$sources$process_id <- process$pid
  tables$sources$host_name <- as_valid_utf8(process$host)
  tables$sources$process_role <- process$role
  if (is.null(tasks)) {
    tasks <- data.frame(start_time = numeric(), end_time = numeric(), status = character())
  }
  tables$tasks <- tasks_table(tables$sources$source_id[[1L]], tasks)
  tables$waits <- waits_table(tables$sources$source_id[[1L]], waits)
  tables
}

# The allocations a worker recorded in its tasks (`allocations = TRUE`, see
# run_recorded_task()) as the tables of an "rprofmem" source, cut to its
# tasks (see cut_task_allocations()), its functions those of the worker's
# time profile (`functions`) where one has the name; NULL without a file.
read_worker_rprofmem <- function(state, process, functions) {
  path <- file.path(state$dir, paste0("rprofmem-", process$token, ".out"))
  if (!file.exists(path)) {
    return(NULL)
  }
  uri <- if (state$temporary) NA_character_ else path
  y <- read_rprofmem(path, source_uri = uri)
  tables <- cut_task_allocations(dm::dm_get_tables(y, keyed = FALSE))
  tables$functions <- functions_like(tables$functions, functions)
  tables
}

# The allocations of a worker's tasks, cut as its time samples are (see
# cut_worker_machinery()): Rprofmem() names the frame profile:::run_task()
# `<Anonymous>` (its call's head is no symbol), so the frame is found by its
# place, the first `<Anonymous>` frame inside the outermost
# run_recorded_task() frame (past its eval() frames); it becomes `<top
# level>`, the frames outside it are cut off, and the allocations made
# outside a task (the task's own bookkeeping) are dropped.
cut_task_allocations <- function(tables) {
  sl <- tables$sample_locations
  sl <- sl[order(sl$sample_id, sl$depth), , drop = FALSE]
  function_id <- tables$locations$function_id[match(sl$location_id, tables$locations$location_id)]
  name <- tables$functions$name[match(function_id, tables$functions$function_id)]
  name[is.na(name)] <- ""
  outer <- outermost_depth(sl, name == "run_recorded_task")
  limit <- outer[as.character(sl$sample_id)]
  # the innermost depth (largest below the run_recorded_task frame) of an
  # `<Anonymous>` frame: its frames inward are eval()s only
  inside <- !is.na(limit) & sl$depth < limit
  anonymous <- inside & name == "<Anonymous>"
  other <- inside & !name %in% c("eval", "<Anonymous>")
  first_anonymous <- outermost_depth(sl, anonymous)
  first_other <- outermost_depth(sl, other)
  ids <- names(first_anonymous)
  beyond <- first_other[ids]
  ok <- is.na(beyond) | beyond < first_anonymous
  boundary <- first_anonymous[ok]
  depth_limit <- boundary[as.character(sl$sample_id)]
  keep_row <- !is.na(depth_limit) & sl$depth <= depth_limit
  top_id <- max(c(0L, tables$functions$function_id, tables$locations$location_id)) + 1L
  at_top <- keep_row & sl$depth == depth_limit
  sl$location_id[at_top] <- top_id
  tables$sample_locations <- sl[keep_row, , drop = FALSE]
  top <- top_level_rows(top_id, top_id)
  tables$functions <- vctrs::vec_rbind(tables$functions, top$functions)
  tables$locations <- vctrs::vec_rbind(tables$locations, top$locations)
  kept <- as.integer(names(boundary))
  for (t in c("samples", "sample_values", "sample_labels")) {
    if (!is.null(tables[[t]])) tables[[t]] <- tables[[t]][tables[[t]]$sample_id %in% kept, ]
  }
  tables
}

# The profile of a worker's Rprof file, its machinery's frames cut off (see
# cut_worker_machinery()), stamped with the start of its first task (or NA);
# NULL when the worker wrote no file.
read_worker_rprof <- function(state, process, tasks) {
  path <- file.path(state$dir, paste0("rprof-", process$token, ".out"))
  if (!file.exists(path) || file.size(path) == 0) {
    return(NULL)
  }
  uri <- if (state$temporary) NA_character_ else path
  unfinished <- any(tasks$status == "unfinished")
  x <- if (unfinished) {
    suppressWarnings(read_rprof(path, source_uri = uri, source_text = FALSE))
  } else {
    read_rprof(path, source_uri = uri, source_text = FALSE)
  }
  tables <- cut_worker_machinery(dm::dm_get_tables(x, keyed = FALSE))
  tables$sources$source_timestamp <- if (nrow(tasks)) min(tasks$start_time) else NA_real_
  tables
}

# The tasks of a process from its log: task, start and end times, status
# ("ok", "error", or "unfinished" when the log has its start only: the
# process ended or was stopped during it, which a warning says).
read_task_log <- function(dir, process) {
  log <- file.path(dir, paste0("tasks-", process$token, ".tsv"))
  empty <- data.frame(
    task = character(), start_time = numeric(), end_time = numeric(), status = character()
  )
  if (!file.exists(log)) {
    return(empty)
  }
  events <- utils::read.delim(log,
    header = FALSE, col.names = c("task", "event", "time"),
    colClasses = c("character", "character", "numeric")
  )
  starts <- events[events$event == "start", ]
  ends <- events[events$event != "start", ]
  m <- match(starts$task, ends$task)
  tasks <- data.frame(
    task = starts$task, start_time = starts$time, end_time = ends$time[m],
    status = ifelse(is.na(m), "unfinished", ends$event[m])
  )
  if (any(is.na(m))) {
    cli::cli_warn(
      c(
        paste(
          "A task in the {process$role} process {process$pid} on {.val {process$host}}",
          "did not finish: the process ended or was stopped during it."
        ),
        i = "The samples the process wrote until then are kept."
      ),
      class = c("profile_warning_worker_lost", "profile_warning")
    )
  }
  tasks
}

# (new_tibble(), not tibble(): tibble()'s checks of its arguments cost about
# a millisecond a call, which adds up per source in the assembling that
# bench/workers.R times)
tasks_table <- function(source_id, tasks) {
  n <- nrow(tasks)
  tibble::new_tibble(list(
    source_id = rep(source_id, n),
    start_time = as.numeric(tasks$start_time),
    end_time = as.numeric(tasks$end_time),
    status = as.character(tasks$status)
  ), nrow = n)
}

# One row of the tables functions and locations: the frame `<top level>`
# with the ids given.
top_level_rows <- function(function_id, location_id) {
  list(
    functions = tibble::new_tibble(list(
      function_id = function_id, name = "<top level>", system_name = "", filename = "",
      start_line = 0L
    ), nrow = 1L),
    locations = tibble::new_tibble(list(
      location_id = location_id, function_id = function_id, line = 0L
    ), nrow = 1L)
  )
}

# The frames of a worker's own machinery cut off every stack, as
# profile_record() cuts its caller's: the stack is kept from the outermost
# frame profile:::run_task() (a task of profile_task()), else from the
# outermost do.call() inside parallel's workCommand() (a PSOCK worker's
# task), which becomes the frame `<top level>`; samples with neither (the
# worker waiting between tasks) are dropped.
cut_worker_machinery <- function(tables) {
  sl <- tables$sample_locations
  function_id <- tables$locations$function_id[match(sl$location_id, tables$locations$location_id)]
  name <- tables$functions$name[match(function_id, tables$functions$function_id)]
  name[is.na(name)] <- ""
  boundary <- outermost_depth(sl, name == "profile:::run_task")
  command <- outermost_depth(sl, name == "workCommand")
  below_command <- name == "do.call" & sl$depth < command[as.character(sl$sample_id)]
  calls <- outermost_depth(sl, !is.na(below_command) & below_command)
  boundary <- boundary[as.character(tables$samples$sample_id)]
  calls <- calls[as.character(tables$samples$sample_id)]
  boundary[is.na(boundary)] <- calls[is.na(boundary)]
  names(boundary) <- as.character(tables$samples$sample_id)
  kept <- tables$samples$sample_id[!is.na(boundary)]

  depth_limit <- boundary[as.character(sl$sample_id)]
  keep_row <- !is.na(depth_limit) & sl$depth <= depth_limit
  sl <- sl[keep_row, ]
  function_id <- max(c(0L, tables$functions$function_id)) + 1L
  location_id <- max(c(0L, tables$locations$location_id)) + 1L
  top <- top_level_rows(function_id, location_id)
  tables$functions <- vctrs::vec_rbind(tables$functions, top$functions)
  tables$locations <- vctrs::vec_rbind(tables$locations, top$locations)
  sl$location_id[sl$depth == depth_limit[keep_row]] <- location_id
  tables$sample_locations <- sl
  for (t in c("samples", "sample_values", "sample_labels")) {
    if (!is.null(tables[[t]])) tables[[t]] <- tables[[t]][tables[[t]]$sample_id %in% kept, ]
  }
  tables
}

# Per sample (names: sample ids), the largest depth (the outermost frame) of
# the rows of `sl` where `is` holds; samples without such a row are absent.
outermost_depth <- function(sl, is) {
  if (!any(is)) {
    return(integer())
  }
  depth <- tapply(sl$depth[is], sl$sample_id[is], max)
  stats::setNames(as.integer(depth), names(depth))
}
