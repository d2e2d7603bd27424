# Profiles in a database at scale (issues 17 and 25): COUNT appends of real
# Rprof recordings of 1e4 samples each (1e7 samples for COUNT = 1000), one
# append at a time, into SQLite (a file) and into a throwaway PostgreSQL
# cluster, then profile_summary(), write_folded() and validate_profile() of
# the whole database. Two data sets:
#
#   same    COUNT appends of one recording (the workloads of
#           data-raw/rprof-workloads, as 2.1's benchmark);
#   mixed   COUNT appends drawn from ten recordings of different R code
#           (data-raw/bench/workloads.R), each COUNT / 10 times, in a
#           shuffled order.
#
# The recordings are made by data-raw/bench/record.R (memory and line
# profiling, bench/data/db-<workload>.out, 1 700 to 3 100 samples each) and
# made 1e4 samples long here by repeating their stack lines.
#
#   Rscript bench/db.R [COUNT [SETS [BACKENDS]]]  # 1000 same,mixed sqlite,postgres
#
# Runs with whichever build of the package R finds first, so that the same
# script times 2.1 (R_LIBS=<library of 2.1>) and this version. Reports per
# backend and set: the time of each append (medians of the first and the last
# tenth, and of each tenth), the database's size, the three functions over
# the whole database, and whether their results equal those expected from
# the recordings: per function, COUNT_i times its self and total value in
# recording i, summed (what summarising the combined profile gives, as both
# are sums over samples), and the folded stacks likewise.

args <- commandArgs(trailingOnly = TRUE)
count <- if (length(args) >= 1L) as.integer(args[[1L]]) else 1000L
listed <- function(i, default) {
  if (length(args) >= i) strsplit(args[[i]], ",", fixed = TRUE)[[1L]] else default
}
sets <- listed(2L, c("same", "mixed"))
backends <- listed(3L, c("sqlite", "postgres"))
stopifnot(!is.na(count), count >= 10L, count %% 10L == 0L)

# Extra settings of the PostgreSQL server, e.g. "-c autovacuum=off".
server_settings <- Sys.getenv("PROFILE_BENCH_PG_SETTINGS")

suppressPackageStartupMessages(library(profile))
# the build: 2.1's database layout, or 2.2's (which has profile_db_upgrade())
layout <- if (exists("profile_db_upgrade", asNamespace("profile"))) "2.2" else "2.1"
version <- paste0(utils::packageVersion("profile"), " (database layout ", layout, ")")
workloads <- c(
  "rounds", "strings", "frames", "matrices", "sorting", "functional", "parsing",
  "environments", "recursion", "numeric"
)

# A recording as an Rprof file of `n` samples: its header and #File lines,
# then its stack lines cut or repeated to `n` lines (as bench/scale-inputs.R
# makes 2.1's input from its recording).
cut_recording <- function(name, n = 1e4) {
  src <- file.path("bench", "data", sprintf("db-%s.out", name))
  if (!file.exists(src)) stop("run `Rscript data-raw/bench/record.R` first (", src, ")")
  out <- file.path("bench", "data", sprintf("db-%s-%d.out", name, as.integer(n)))
  if (!file.exists(out)) {
    lines <- readLines(src)
    is_stack <- !grepl("^#File |sample\\.interval=", lines)
    writeLines(c(lines[!is_stack], rep_len(lines[is_stack], n)), out)
  }
  out
}

big <- function(n) format(n, big.mark = " ", scientific = FALSE)
load_now <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")

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
    DBI::dbExecute(con, "CHECKPOINT")
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

# Self and total per function name, and the folded stacks with their values.
shown <- function(x) {
  s <- profile_summary(x, n = Inf)
  folded <- tempfile(fileext = ".folded")
  on.exit(unlink(folded))
  write_folded(x, folded)
  lines <- readLines(folded)
  split_at <- regexpr(" [^ ]*$", lines)
  list(
    summary = data.frame(name = s$name, self = s$self, total = s$total),
    folded = data.frame(
      stack = substr(lines, 1L, split_at - 1L),
      value = as.numeric(substring(lines, split_at + 1L))
    )
  )
}

# What the whole database must show: each recording's numbers times the
# number of its appends, added up.
expected_shown <- function(runs, times) {
  parts <- lapply(names(runs), function(name) {
    s <- shown(runs[[name]])
    s$summary[c("self", "total")] <- s$summary[c("self", "total")] * times[[name]]
    s$folded$value <- s$folded$value * times[[name]]
    s
  })
  summary <- do.call(rbind, lapply(parts, `[[`, "summary"))
  folded <- do.call(rbind, lapply(parts, `[[`, "folded"))
  list(
    summary = stats::aggregate(cbind(self, total) ~ name, data = summary, FUN = sum),
    folded = stats::aggregate(value ~ stack, data = folded, FUN = sum)
  )
}

same_numbers <- function(a, b, key) {
  a <- a[order(a[[key]], method = "radix"), , drop = FALSE]
  b <- b[order(b[[key]], method = "radix"), , drop = FALSE]
  rownames(a) <- rownames(b) <- NULL
  isTRUE(all.equal(a, b, check.attributes = FALSE))
}

bench_one <- function(backend, set) {
  db <- switch(backend,
    sqlite = start_sqlite(),
    postgres = start_postgres()
  )
  if (is.null(db)) {
    cat(sprintf("\n== %s: skipped (not available here)\n", backend))
    return(invisible())
  }
  on.exit(db$stop())
  names <- if (set == "same") "rounds" else workloads
  runs <- lapply(names, function(name) read_rprof(cut_recording(name)))
  names(runs) <- names
  draws <- rep_len(names, count)
  if (set == "mixed") {
    set.seed(25)
    draws <- sample(draws)
  }
  times <- table(factor(draws, levels = names))
  cat(sprintf(
    "\n== profile %s, %s, set %s: %d appends of %s (%s samples each)%s; load %s\n",
    version, backend, set, count, paste(names, collapse = ", "),
    paste(unique(vapply(runs, function(r) nrow(r$samples), 1L)), collapse = "/"),
    if (backend == "postgres" && nzchar(server_settings)) {
      paste0("; server: ", server_settings)
    } else {
      ""
    },
    load_now()
  ))
  seconds <- numeric(count)
  # CPU seconds of this R process: SQLite's work included (it runs in the
  # process), PostgreSQL's server not; unlike the elapsed time, they do not
  # grow with the load of other processes on the machine
  cpu <- numeric(count)
  for (i in seq_len(count)) {
    timed <- system.time(profile_db_append(db$con, runs[[draws[[i]]]]))
    seconds[[i]] <- timed[["elapsed"]]
    cpu[[i]] <- timed[["user.self"]] + timed[["sys.self"]]
    if (i %% 100L == 0L) {
      cat(sprintf("  %5d appends: last one %.2f s (load %s)\n", i, seconds[[i]], load_now()))
    }
  }
  tenth <- count %/% 10L
  first <- median(seconds[seq_len(tenth)])
  last <- median(seconds[seq.int(count - tenth + 1L, count)])
  by_tenth <- tapply(seconds, ceiling(seq_len(count) / tenth), stats::median)
  cpu_first <- median(cpu[seq_len(tenth)])
  cpu_last <- median(cpu[seq.int(count - tenth + 1L, count)])
  cpu_by_tenth <- tapply(cpu, ceiling(seq_len(count) / tenth), stats::median)
  utils::write.csv(
    data.frame(append = seq_len(count), recording = draws, elapsed = seconds, cpu = cpu),
    file.path(
      "bench", "results", sprintf("db-%s-%s-%s-%d-appends.csv", layout, backend, set, count)
    ),
    row.names = FALSE
  )
  size_mb <- db$size() / 2^20
  profile <- profile_db(db$con)
  samples <- as.numeric(DBI::dbGetQuery(db$con, "SELECT COUNT(*) AS n FROM samples")$n)
  summary_s <- system.time(summary <- profile_summary(profile, n = Inf))[["elapsed"]]
  folded_path <- tempfile(fileext = ".folded")
  folded_s <- system.time(write_folded(profile, folded_path))[["elapsed"]]
  unlink(folded_path)
  validate_s <- system.time(validate_profile(profile))[["elapsed"]]
  got <- shown(profile)
  want <- expected_shown(runs, times)
  equal_summary <- same_numbers(got$summary, want$summary, "name")
  equal_folded <- same_numbers(got$folded, want$folded, "stack")
  cat(sprintf(
    "append: median of the first %d %.3f s, of the last %d %.3f s (ratio %.2f); all %.0f s\n",
    tenth, first, tenth, last, last / first, sum(seconds)
  ))
  cat("append: median seconds of each tenth:", sprintf("%.3f", by_tenth), "\n")
  cat(sprintf(
    "append CPU: median of the first %d %.3f s, of the last %d %.3f s (ratio %.2f)\n",
    tenth, cpu_first, tenth, cpu_last, cpu_last / cpu_first
  ))
  cat("append CPU: median seconds of each tenth:", sprintf("%.3f", cpu_by_tenth), "\n")
  cat(sprintf(
    "database: %s samples, %.0f MB (%.0f bytes a sample)\n",
    big(samples), size_mb, size_mb * 2^20 / samples
  ))
  cat(sprintf(
    paste(
      "profile_summary() %.1f s, write_folded() %.1f s, validate_profile() %.1f s",
      "of the whole database\n"
    ),
    summary_s, folded_s, validate_s
  ))
  cat(sprintf(
    "results equal the recordings' times their counts: summary %s, folded stacks %s\n",
    equal_summary, equal_folded
  ))
  cat(sprintf(
    paste(
      "RESULT layout=%s version=%s backend=%s set=%s appends=%d first=%.3f last=%.3f",
      "ratio=%.2f cpu_first=%.3f cpu_last=%.3f cpu_ratio=%.2f total=%.0f size_mb=%.0f",
      "summary=%.2f folded=%.2f validate=%.2f equal=%s load=%s\n"
    ),
    layout, utils::packageVersion("profile"), backend, set, count, first, last, last / first,
    cpu_first, cpu_last, cpu_last / cpu_first,
    sum(seconds), size_mb, summary_s, folded_s,
    validate_s, equal_summary && equal_folded, gsub(" ", "/", load_now())
  ))
  print(utils::head(as.data.frame(summary)[c("name", "self", "self_pct", "total", "total_pct")], 5))
}

cat(sprintf(
  "bench/db.R: profile %s; %s; R %s; %s; load %s\n",
  version, format(Sys.time(), tz = "UTC", usetz = TRUE), getRversion(),
  paste(Sys.info()[c("sysname", "release")], collapse = " "), readLines("/proc/loadavg")
))
for (set in sets) for (backend in backends) bench_one(backend, set)
