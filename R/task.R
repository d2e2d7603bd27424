#' A function that profiles itself wherever it runs
#'
#' `profile_task(f)` returns a function that calls `f` with its arguments
#' and, while [profile_record()] records, profiles itself in the process it
#' runs in: a forked child of [parallel::mclapply()] or
#' [parallel::mcparallel()], a PSOCK worker, a process of `callr`, a future.
#' Outside a recording it is just `f`. The recording then has one source per
#' process (see "Parallel code" in [profile_record()]), and the table `tasks`
#' keeps each call's wall-clock start and end and the process that ran it.
#'
#' R's profiler samples only the process that started it, and a forked child
#' does not inherit it: the tasks that run in other processes are profiled
#' only when they start the profiler themselves, which the function returned
#' does. It finds the recording through the environment variable
#' `PROFILE_RECORD_WORKERS`, which `profile_record()` sets and every process
#' it starts inherits (on the same host); the workers must have the package
#' `profile` installed.
#'
#' In the process that records (`lapply(xs, profile_task(f))`) and in PSOCK
#' workers that `profile_record()` profiles already, the function keeps the
#' times of its calls and leaves the profiler as it is.
#'
#' @param f A function.
#' @return A function with the arguments of `f` (`...`), which returns what
#'   `f` returns.
#' @seealso [profile_record()].
#' @export
#' @examples
#' burn <- function(n) {
#'   total <- 0
#'   for (i in seq_len(n)) total <- total + sqrt(i)
#'   total
#' }
#' # outside a recording, just `burn`
#' profile_task(burn)(10)
#' # each task recorded in the process that runs it (forks: not on Windows)
#' cores <- if (.Platform$OS.type == "windows") 1L else 2L
#' x <- profile_record(parallel::mclapply(c(2e5, 2e5), profile_task(burn), mc.cores = cores))
#' dm::dm_get_tables(x)$sources[c("source_id", "process_id", "process_role")]
#' dm::dm_get_tables(x)$tasks
#' profile_summary(x, by = "process")
profile_task <- function(f) {
  name <- task_function_name(substitute(f))
  f <- match.fun(f)
  # function(...) profile:::task_entry(<f>, <name>, ...): `f` is part of the
  # body, so that the function keeps it where its environment is replaced
  # (callr::r() sends functions with the global environment as theirs)
  entry <- call(":::", as.name("profile"), as.name("task_entry"))
  dots <- formals(function(...) NULL)
  rlang::new_function(dots, as.call(list(entry, f, name, quote(...))), globalenv())
}

# The name the profiler gives the task's function: the name it was given to
# profile_task() by (`worker`, `env$worker`, `pkg::worker`: "worker"), or NA
# (then "<Anonymous>", as R names a function called without a name).
task_function_name <- function(expr) {
  if (is.call(expr) && length(expr) == 3L &&
    as.character(expr[[1L]])[[1L]] %in% c("$", "@", "::", ":::")) {
    expr <- expr[[3L]]
  }
  if (is.symbol(expr)) as.character(expr) else NA_character_
}

# The body of a function of profile_task(): `f(...)`, as a task of the
# recording when one runs.
task_entry <- function(f, name, ...) {
  dir <- Sys.getenv(workers_env_var)
  if (!nzchar(dir) || !dir.exists(dir)) {
    return(f(...))
  }
  run_recorded_task(f, name, dir, ...)
}

# The environment variable that names the folder of a recording of parallel
# code (set by profile_record(), inherited by the processes it starts), and
# the one that names the process's token in a worker that profiles itself
# from its start (see worker_profiler_start()).
workers_env_var <- "PROFILE_RECORD_WORKERS"
token_env_var <- "PROFILE_RECORD_TOKEN"

# What this process knows of the recording it works for: its token, and the
# process id it was made in (a forked child inherits this environment, and
# sees by the id that it is another process).
task_process <- new.env(parent = emptyenv())

# Runs the task `f(...)`, in the frame profile:::run_task() (where the
# recording cuts the worker's own frames off), timed in the task log of its
# process. In a process whose profiler is not running (a forked child, a
# callr process) the profiler runs for the task, appending to the process's
# Rprof file.
run_recorded_task <- function(f, name, dir, ...) {
  settings <- read_worker_settings(dir)
  own <- isTRUE(rust_value(ffi_profiler_running(), "Can't tell whether a profiler runs."))
  pid <- Sys.getpid()
  token <- if (pid == settings$main_pid) "main" else task_token(dir, settings)
  task <- paste0(token, "-", format(as.numeric(Sys.time()) * 1e6, scientific = FALSE))
  log <- file.path(dir, paste0("tasks-", token, ".tsv"))
  log_task_event(log, task, "start")
  done <- FALSE
  if (!own) {
    utils::Rprof(file.path(dir, paste0("rprof-", token, ".out")),
      append = TRUE, interval = settings$interval, memory.profiling = settings$memory,
      line.profiling = settings$line, gc.profiling = settings$gc
    )
  }
  allocations <- !own && settings$allocations
  if (allocations) {
    # (in a forked child this replaces the allocation profiler it inherited,
    # whose file the fork pointed to /dev/null: see start_workers())
    utils::Rprofmem(file.path(dir, paste0("rprofmem-", token, ".out")),
      append = TRUE, threshold = settings$threshold
    )
  }
  on.exit({
    if (!own) utils::Rprof(NULL)
    if (allocations) utils::Rprofmem(NULL)
    log_task_event(log, task, if (done) "ok" else "error")
  })
  if (token == "main") {
    value <- f(...)
  } else {
    # profile:::run_task(f, name, ...), made so that its frame is named so
    run <- call(":::", as.name("profile"), as.name("run_task"))
    value <- eval(as.call(list(run, f, name, quote(...))))
  }
  done <- TRUE
  value
}

# The frame around a task in a worker: the recording keeps the frames it
# calls (see cut_worker_machinery()).
run_task <- function(f, name, ...) {
  if (is.na(name)) {
    # the function itself as the call's head: "<Anonymous>"
    return(eval(as.call(list(f, quote(...)))))
  }
  # called by its name, in a frame whose parent is this one (which has `...`)
  caller <- new.env(parent = environment())
  assign(name, f, envir = caller)
  eval(as.call(list(as.name(name), quote(...))), caller)
}

# The settings of the recording (see write_worker_settings()), read once per
# folder and process.
read_worker_settings <- function(dir) {
  if (identical(task_process$dir, dir) && !is.null(task_process$settings)) {
    return(task_process$settings)
  }
  dcf <- read.dcf(file.path(dir, "settings.dcf"), all = TRUE)
  settings <- list(
    interval = as.numeric(dcf$interval), memory = as.logical(dcf$memory),
    line = as.logical(dcf$line), gc = as.logical(dcf$gc), main_pid = as.integer(dcf$main_pid),
    allocations = isTRUE(as.logical(dcf$allocations)),
    threshold = if (is.null(dcf$threshold)) 0 else as.numeric(dcf$threshold)
  )
  task_process$dir <- dir
  task_process$settings <- settings
  settings
}

# This process's token in the recording: the one its startup gave it (a PSOCK
# worker profiled from its start), else one made on its first task, when
# the process is described in the folder (see describe_process()). A forked
# child first points the files it inherited from its parent's recording to
# /dev/null, so that closing them writes nothing into the parent's.
task_token <- function(dir, settings) {
  pid <- Sys.getpid()
  if (identical(task_process$pid, pid) && identical(task_process$token_dir, dir)) {
    return(task_process$token)
  }
  token <- Sys.getenv(token_env_var)
  if (!startsWith(token, paste0(pid, "-"))) {
    inherited <- list.files(dir, pattern = "^rprof-.*[.]out$", full.names = TRUE)
    main_file <- read.dcf(file.path(dir, "settings.dcf"), fields = "main_file")[[1L]]
    ffi_detach_inherited_files(c(inherited, main_file[!is.na(main_file)]))
    token <- new_process_token()
    describe_process(dir, token, "worker")
  }
  task_process$pid <- pid
  task_process$token_dir <- dir
  task_process$token <- token
  token
}

new_process_token <- function() {
  paste0(Sys.getpid(), "-", format(as.numeric(Sys.time()) * 1e6, scientific = FALSE))
}

# A file `process-TOKEN.dcf` in the folder of the recording: the process's id,
# its host, its role, and how it is profiled: "tasks" (during its tasks of
# profile_task() only), or "process" (from its start, by
# worker_profiler_start()).
describe_process <- function(dir, token, role) {
  write.dcf(
    data.frame(
      token = token, pid = Sys.getpid(), host = Sys.info()[["nodename"]], role = role,
      profiled = "tasks"
    ),
    file.path(dir, paste0("process-", token, ".dcf"))
  )
}

# One line of a task's log: the task, the event ("start", "ok", "error") and
# the time (seconds since the epoch), appended as it happens so that a
# process that dies leaves the start of its task.
log_task_event <- function(log, task, event) {
  cat(task, "\t", event, "\t", format(as.numeric(Sys.time()), digits = 17), "\n",
    file = log, append = TRUE, sep = ""
  )
}
