# Profiles in a database at scale (issue 17): appends COUNT runs of a real
# Rprof recording of 1e4 samples (bench/data/rprof-scale-10000.out, made by
# bench/scale-inputs.R) one append at a time into SQLite (a file) and into a
# throwaway PostgreSQL cluster, then summarises the whole database.
#
#   Rscript bench/db.R [COUNT [BACKENDS]]     # defaults: 1000 sqlite,postgres
#
# Reports per backend: the time of each append (the first and the last tenth
# of them: flat when appending does not depend on what the database holds),
# profile_summary() and validate_profile() over the whole database, the
# database's size, and R's memory: the largest R heap during the summary
# (bench::mark(memory = TRUE) and gc()'s "max used") against the size of the
# per-sample tables, which are never collected, and the process's peak
# resident size (VmHWM).

args <- commandArgs(trailingOnly = TRUE)
count <- if (length(args) >= 1L) as.integer(args[[1L]]) else 1000L
backends <- if (length(args) >= 2L) strsplit(args[[2L]], ",", fixed = TRUE)[[1L]] else c("sqlite", "postgres")
stopifnot(!is.na(count), count >= 10L)

# Extra settings of the PostgreSQL server, e.g. "-c shared_buffers=1GB -c
# max_wal_size=8GB", to tell the database's own costs (checkpoints, buffer
# cache) from the package's.
server_settings <- Sys.getenv("PROFILE_BENCH_PG_SETTINGS")

suppressPackageStartupMessages(library(profile))
source(file.path("bench", "scale-inputs.R"))
input <- scale_inputs(1e4)
run <- read_rprof(input)
samples_per_run <- nrow(run$samples)

big <- function(n) format(n, big.mark = " ", scientific = FALSE)

peak_resident_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
}

# A PostgreSQL cluster in a directory under /tmp (as root the server runs as
# `postgres`, which cannot enter R's temporary directory), stopped and removed
# by the function returned.
start_postgres <- function() {
  bin <- Sys.glob("/usr/lib/postgresql/*/bin")
  bin <- bin[file.exists(file.path(bin, "initdb"))]
  if (!length(bin) || !requireNamespace("RPostgres", quietly = TRUE)) {
    return(NULL)
  }
  bin <- bin[[length(bin)]]
  as_root <- identical(Sys.info()[["effective_user"]], "root")
  pg <- function(program, ...) {
    command <- c(if (as_root) c("runuser", "-u", "postgres", "--"), file.path(bin, program), ...)
    status <- system2(command[[1L]], shQuote(command[-1L]), stdout = FALSE, stderr = FALSE)
    if (status != 0) stop(program, " failed")
  }
  dir <- tempfile("profile-bench-pg-", tmpdir = "/tmp")
  dir.create(dir)
  Sys.chmod(dir, "0777", use_umask = FALSE)
  data <- file.path(dir, "data")
  port <- 45000L + Sys.getpid() %% 5000L
  pg("initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale")
  pg(
    "pg_ctl", "-D", data, "-l", file.path(dir, "server.log"), "-w", "start",
    "-o", paste(sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", port, dir), server_settings)
  )
  con <- withr::with_envvar(c(TZ = "UTC"), DBI::dbConnect(RPostgres::Postgres(),
    host = "127.0.0.1", port = port, user = "postgres", dbname = "postgres",
    timezone = "UTC", timezone_out = "UTC"
  ))
  list(con = con, size = function() {
    as.numeric(DBI::dbGetQuery(con, "SELECT pg_database_size(current_database()) AS s")$s)
  }, stop = function() {
    DBI::dbDisconnect(con)
    pg("pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
    unlink(dir, recursive = TRUE)
  })
}

start_sqlite <- function() {
  path <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  list(con = con, size = function() file.size(path), stop = function() {
    DBI::dbDisconnect(con)
    unlink(path)
  })
}

bench_backend <- function(backend) {
  db <- switch(backend,
    sqlite = start_sqlite(),
    postgres = start_postgres()
  )
  if (is.null(db)) {
    cat(sprintf("\n== %s: skipped (not available here)\n", backend))
    return(invisible())
  }
  on.exit(db$stop())
  cat(sprintf(
    "\n== %s: %d appends of %s (%d samples each)%s\n", backend, count, basename(input), samples_per_run,
    if (backend == "postgres" && nzchar(server_settings)) paste0("; server settings: ", server_settings) else ""
  ))
  seconds <- numeric(count)
  for (i in seq_len(count)) {
    seconds[[i]] <- system.time(profile_db_append(db$con, run))[["elapsed"]]
    if (i %% 100L == 0L) {
      cat(sprintf(
        "  %5d appends: last one %.2f s (load %s)\n", i, seconds[[i]],
        paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")
      ))
    }
  }
  tenth <- max(1L, count %/% 10L)
  first <- median(seconds[seq_len(tenth)])
  last <- median(seconds[seq.int(count - tenth + 1L, count)])
  cat(sprintf(
    "append: median of the first %d %.3f s, of the last %d %.3f s (ratio %.2f); all %.0f s\n",
    tenth, first, tenth, last, last / first, sum(seconds)
  ))
  by_tenth <- tapply(seconds, ceiling(seq_len(count) / (count / 10)), stats::median)
  cat("append: median seconds of each tenth of the appends:", sprintf("%.2f", by_tenth), "\n")

  profile <- profile_db(db$con)
  counts <- vapply(c("samples", "sample_values", "sample_locations"), function(t) {
    as.numeric(DBI::dbGetQuery(db$con, paste("SELECT COUNT(*) AS n FROM", t))$n)
  }, numeric(1))
  cat(sprintf(
    "database: %s rows in samples, %s in sample_values, %s in sample_locations; %.0f MB\n",
    big(counts[[1]]), big(counts[[2]]), big(counts[[3]]), db$size() / 2^20
  ))
  # what collecting the per-sample tables would take in R: 4 bytes an integer
  # column, 8 a double; type and unit are shared strings (8 bytes a pointer)
  collected_mb <- (counts[["samples"]] * 8 + counts[["sample_values"]] * (4 + 8 + 8 + 8) +
    counts[["sample_locations"]] * 12) / 2^20

  invisible(gc(reset = TRUE))
  summary_mark <- bench::mark(summary = profile_summary(profile), memory = TRUE, iterations = 1L, filter_gc = FALSE)
  heap <- gc()
  max_used_mb <- sum(heap[, ncol(heap)]) # the "max used" column in MB
  validate_seconds <- system.time(validate_profile(profile))[["elapsed"]]
  summary <- profile_summary(profile, n = 5)
  cat(sprintf(
    "profile_summary() over the whole database: %.1f s, %.1f MB allocated by R\n",
    as.numeric(summary_mark$median), as.numeric(summary_mark$mem_alloc) / 2^20
  ))
  cat(sprintf("validate_profile() over the whole database: %.1f s\n", validate_seconds))
  cat(sprintf(
    "R heap max used during the summary: %.0f MB (the per-sample tables collected: >= %.0f MB)\n",
    max_used_mb, collected_mb
  ))
  cat(sprintf("process peak resident size so far (VmHWM): %.0f MB\n", peak_resident_mb()))
  print(as.data.frame(summary)[c("name", "self", "self_pct", "total", "total_pct")])
}

cat(sprintf(
  "bench/db.R: %s; R %s; %s; load %s\n", format(Sys.time(), tz = "UTC", usetz = TRUE),
  getRversion(), paste(Sys.info()[c("sysname", "release")], collapse = " "), readLines("/proc/loadavg")
))
for (backend in backends) bench_backend(backend)
