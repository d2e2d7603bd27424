# Where the wall time of profile_record() of parallel code goes (issue 33):
# the workload of bench/workers.R (a PSOCK cluster of 2 workers started and
# stopped inside the code), plain and recorded, alternated, with the time of
# each phase: the cluster's start (the workers' startup, with the recording's
# startup file), the workers' tasks (their CPU time measured inside them),
# the cluster's stop and the end of its processes, and in the recording the
# steps of profile_record() after the code (stopping, waiting for the
# workers, reading and assembling). From the package root:
#
#   R_LIBS=.rlib Rscript bench/workers-phases.R [SECONDS] [RUNS]

args <- commandArgs(trailingOnly = TRUE)
seconds <- if (length(args) >= 1L) as.numeric(args[[1]]) else 1
runs <- if (length(args) >= 2L) as.integer(args[[2]]) else 5L

suppressPackageStartupMessages(library(profile))
ns <- asNamespace("profile")

spin <- function(n) {
  total <- 0
  for (i in seq_len(n)) total <- total + sqrt(i)
  total
}
steps <- local({
  t <- system.time(spin(1e6))[["user.self"]]
  round(1e6 * seconds / max(t, 1e-3))
})

# The time of each step of profile_record() that exists in this build,
# collected per run.
marks <- new.env()
steps_timed <- c(
  "start_recording", "start_workers", "finish_workers", "stop_recording", "read_recording",
  "read_workers", "wait_for_workers", "process_parts", "combine_profiles"
)
for (name in intersect(steps_timed, ls(ns, all.names = TRUE))) {
  local({
    f <- get(name, ns)
    n <- name
    wrapper <- function(...) {
      t <- proc.time()[["elapsed"]]
      on.exit(marks[[n]] <- c(marks[[n]], proc.time()[["elapsed"]] - t))
      f(...)
    }
    environment(wrapper) <- list2env(list(f = f, n = n, marks = marks), parent = ns)
    utils::assignInNamespace(name, wrapper, "profile")
  })
}

# The workload, with its phases' times and what the workers measured of
# themselves: the elapsed and CPU time of their startup (until the first
# call), the CPU time of their task, and how long their processes took to
# end after stopCluster() returned.
workload <- function(phases) {
  t0 <- proc.time()[["elapsed"]]
  cl <- parallel::makePSOCKcluster(2)
  t1 <- proc.time()[["elapsed"]]
  start <- parallel::clusterCall(cl, function() {
    p <- proc.time()
    c(pid = Sys.getpid(), elapsed = p[["elapsed"]], cpu = p[["user.self"]] + p[["sys.self"]])
  })
  parallel::clusterExport(cl, "spin", envir = globalenv())
  t2 <- proc.time()[["elapsed"]]
  tasks <- parallel::clusterApply(cl, c(steps, steps), function(n) {
    p <- proc.time()
    spin(n)
    sum((proc.time() - p)[c("user.self", "sys.self")])
  })
  t3 <- proc.time()[["elapsed"]]
  parallel::stopCluster(cl)
  t4 <- proc.time()[["elapsed"]]
  pids <- vapply(start, function(s) s[["pid"]], numeric(1))
  phases$cluster_start <- t1 - t0
  phases$worker_start_elapsed <- mean(vapply(start, function(s) s[["elapsed"]], numeric(1)))
  phases$worker_start_cpu <- mean(vapply(start, function(s) s[["cpu"]], numeric(1)))
  phases$tasks <- t3 - t2
  phases$task_cpu <- mean(unlist(tasks))
  phases$cluster_stop <- t4 - t3
  phases$pids <- pids
  phases$stopped_at <- t4
  invisible()
}

# How long after `since` the processes `pids` end (polled every 5 ms, up
# to 5 s).
time_to_end <- function(pids, since) {
  deadline <- proc.time()[["elapsed"]] + 5
  while (any(vapply(pids, function(p) isTRUE(tools::pskill(p, 0L)), logical(1))) &&
    proc.time()[["elapsed"]] < deadline) {
    Sys.sleep(0.005)
  }
  proc.time()[["elapsed"]] - since
}

load <- function() strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3]
cat(sprintf("load before: %s\n", paste(load(), collapse = " ")))
rows <- list()
for (i in seq_len(runs)) {
  for (mode in c("plain", "recorded")) {
    phases <- new.env()
    rm(list = ls(marks), envir = marks)
    t <- proc.time()[["elapsed"]]
    if (mode == "plain") {
      workload(phases)
      wall <- proc.time()[["elapsed"]] - t
      end <- time_to_end(phases$pids, phases$stopped_at)
    } else {
      x <- profile_record(workload(phases), interval = 0.01)
      wall <- proc.time()[["elapsed"]] - t
      end <- time_to_end(phases$pids, phases$stopped_at)
    }
    row <- data.frame(
      run = i, mode = mode, wall = wall, cluster_start = phases$cluster_start,
      worker_start = phases$worker_start_elapsed, worker_start_cpu = phases$worker_start_cpu,
      tasks = phases$tasks, task_cpu = phases$task_cpu, cluster_stop = phases$cluster_stop,
      workers_end = end
    )
    for (name in steps_timed) {
      row[[name]] <- if (is.null(marks[[name]])) NA_real_ else sum(marks[[name]])
    }
    rows[[length(rows) + 1L]] <- row
  }
}
cat(sprintf("load after: %s\n", paste(load(), collapse = " ")))
all <- do.call(rbind, rows)
options(width = 200)
print(format(all, digits = 3))
med <- aggregate(. ~ mode, data = all[, -1], FUN = median, na.action = na.pass)
cat("\nmedians (s):\n")
print(format(med, digits = 3))
