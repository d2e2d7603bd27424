# PSOCK workers: those started inside `expr` (parallel::makePSOCKcluster(),
# future's multisession through parallelly) read R's startup files, so that
# R_PROFILE_USER, pointed to a file of the recording's folder, starts their
# profiler; those of a cluster made before are reached by clusterCall().

# Starts the profiler of this process as a worker of the recording in `dir`:
# describes the process in the folder and profiles it into its own Rprof file
# until it ends or worker_profiler_stop() runs; either stops the profiler and
# then writes the file `done-TOKEN` (while the recording's folder is there),
# so that the recording knows the Rprof file complete without waiting for the
# process to end (see wait_for_workers()). Base R only: it runs in a worker's
# startup, before any package is loaded, and is sent to the nodes of a
# cluster (it is deparsed into the startup file, and sent with the global
# environment as its environment, so that the nodes need not load profile).
worker_profiler_start <- function(dir) {
  settings <- read.dcf(file.path(dir, "settings.dcf"), all = TRUE)
  pid <- Sys.getpid()
  token <- paste0(pid, "-", format(as.numeric(Sys.time()) * 1e6, scientific = FALSE))
  write.dcf(
    data.frame(
      token = token, pid = pid, host = Sys.info()[["nodename"]], role = "worker",
      profiled = "process"
    ),
    file.path(dir, paste0("process-", token, ".dcf"))
  )
  Sys.setenv(PROFILE_RECORD_TOKEN = token, PROFILE_RECORD_WORKERS = dir)
  utils::Rprof(file.path(dir, paste0("rprof-", token, ".out")),
    append = TRUE, interval = as.numeric(settings$interval),
    memory.profiling = as.logical(settings$memory), line.profiling = as.logical(settings$line),
    gc.profiling = as.logical(settings$gc)
  )
  # as the process ends (a PSOCK worker whose cluster is stopped), unless
  # worker_profiler_stop() ran: the global environment is never collected, so
  # the finaliser runs at the end only
  reg.finalizer(globalenv(), function(e) {
    if (identical(Sys.getenv("PROFILE_RECORD_TOKEN"), token)) {
      utils::Rprof(NULL)
      if (file.exists(file.path(dir, "settings.dcf"))) {
        file.create(file.path(dir, paste0("done-", token)))
      }
    }
  }, onexit = TRUE)
  invisible(token)
}

# Stops what worker_profiler_start() started on a node of a cluster given
# with `workers`, and says so with the file `done-TOKEN`. Base R only, as
# worker_profiler_start().
worker_profiler_stop <- function() {
  utils::Rprof(NULL)
  token <- Sys.getenv("PROFILE_RECORD_TOKEN")
  dir <- Sys.getenv("PROFILE_RECORD_WORKERS")
  if (nzchar(token) && nzchar(dir) && file.exists(file.path(dir, "settings.dcf"))) {
    file.create(file.path(dir, paste0("done-", token)))
  }
  Sys.unsetenv(c("PROFILE_RECORD_TOKEN", "PROFILE_RECORD_WORKERS"))
  invisible(TRUE)
}

# A copy of `f` whose environment is the global environment, so that sending
# it to a node does not load this package there.
detached_function <- function(f) {
  environment(f) <- globalenv()
  f
}

# The startup file of the recording's workers, which R_PROFILE_USER names
# while `expr` runs: a PSOCK worker (its command line runs .workRSOCK())
# starts its profiler, then every R process runs the user's own startup file
# as R would have (`user`: the R_PROFILE_USER of the recording process, NA
# when it was unset: then .Rprofile in the working directory, else in the
# home directory).
write_worker_startup <- function(dir, user) {
  start <- deparse(worker_profiler_start, control = c("keepInteger", "keepNA"))
  lines <- c(
    "# Written by profile::profile_record() for the R processes started while it records.",
    "local({",
    "  start <- ", paste0("  ", start),
    paste0("  dir <- Sys.getenv(\"", workers_env_var, "\")"),
    "  worker <- any(grepl(\".workRSOCK\", commandArgs(), fixed = TRUE))",
    "  if (worker && nzchar(dir) && dir.exists(dir)) try(start(dir), silent = TRUE)",
    "})",
    "local({",
    paste0("  user <- ", deparse(user)),
    "  if (is.na(user)) {",
    "    user <- if (file.exists(\".Rprofile\")) \".Rprofile\" else path.expand(\"~/.Rprofile\")",
    "  }",
    "  if (nzchar(user) && file.exists(user)) sys.source(user, envir = globalenv())",
    "})"
  )
  path <- file.path(dir, "startup.R")
  writeLines(lines, path)
  path
}

# The clusters of `workers`: NULL, a cluster or a list of clusters.
check_workers <- function(workers, call) {
  if (is.null(workers)) {
    return(list())
  }
  if (inherits(workers, "cluster")) {
    return(list(workers))
  }
  if (is.list(workers) && length(workers) &&
    all(vapply(workers, inherits, logical(1), "cluster"))) {
    return(workers)
  }
  abort_argument(
    "{.arg workers} must be {.code NULL}, a cluster of {.pkg parallel} or a list of clusters.",
    call = call
  )
}

# Starts the profiler on every node of the clusters given.
start_cluster_profilers <- function(clusters, dir) {
  start <- detached_function(worker_profiler_start)
  for (cl in clusters) {
    parallel::clusterCall(cl, start, dir)
  }
}

# Stops the profiler on every node of the clusters given; a node that cannot
# be reached (it ended) is named in a warning.
stop_cluster_profilers <- function(clusters) {
  stop <- detached_function(worker_profiler_stop)
  for (cl in clusters) {
    done <- tryCatch(
      {
        parallel::clusterCall(cl, stop)
        TRUE
      },
      error = function(e) conditionMessage(e)
    )
    if (!isTRUE(done)) {
      cli::cli_warn(
        c(
          "Can't stop the profiler on a node of {.arg workers}: {done}",
          i = "The samples it wrote until then are kept."
        ),
        class = c("profile_warning_worker_lost", "profile_warning")
      )
    }
  }
}
