# Databases for the tests of R/db*.R (tests/testthat/test-db*.R): an empty
# database of each backend, closed (and dropped) when the test ends.
#
# - `local_db("sqlite")`: RSQLite, a file in a temporary directory;
# - `local_db("duckdb")`: duckdb, if installed;
# - `local_db("postgres")`: a database of a PostgreSQL cluster that the test
#   run starts (once) and stops at its end;
# - `local_db("rpostgresql")`: the same through the RPostgreSQL driver.
#
# Each skips the test, saying why, when its backend cannot run here.

db_backends <- c("sqlite", "duckdb", "postgres", "rpostgresql")

local_db <- function(backend, env = parent.frame()) {
  switch(backend,
    sqlite = local_sqlite(env),
    duckdb = local_duckdb(env),
    postgres = local_postgres(env),
    rpostgresql = local_postgres(env, driver = "RPostgreSQL")
  )
}

local_sqlite <- function(env = parent.frame(), path = tempfile(fileext = ".sqlite")) {
  skip_in_check_second_run("the tests of profiles in a database")
  testthat::skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  withr::defer(
    {
      if (DBI::dbIsValid(con)) DBI::dbDisconnect(con)
      unlink(path)
    },
    envir = env
  )
  con
}

# duckdb is looked up by a name held in a variable: it is not among the
# package's Suggests, because installing it means building it from source
# (about an hour of CPU on the project's machines), which CI does not do.
local_duckdb <- function(env = parent.frame()) {
  skip_in_check_second_run("the tests of profiles in a database")
  pkg <- "duckdb"
  if (!requireNamespace(pkg, quietly = TRUE)) {
    testthat::skip(paste(
      "duckdb is not installed (CRAN duckdb 2.0.0 needs DBI >= 1.2 and a source build of",
      "about 35 min, 66 CPU-min, on the project machine; CI does not install it)"
    ))
  }
  driver <- getExportedValue(pkg, "duckdb")
  path <- tempfile(fileext = ".duckdb")
  con <- DBI::dbConnect(driver(), dbdir = path)
  withr::defer(
    {
      DBI::dbDisconnect(con, shutdown = TRUE)
      unlink(c(path, paste0(path, ".wal")))
    },
    envir = env
  )
  con
}

# A new database in the test run's PostgreSQL cluster, dropped at the end of
# the test. Skipped on CRAN (without NOT_CRAN=true, as in R CMD check): a test
# run that starts a database server is for dev/test.sh and devtools::test(),
# which run every PostgreSQL test (the check's run saves four of its nine
# minutes).
local_postgres <- function(env = parent.frame(), driver = "RPostgres") {
  testthat::skip_on_cran()
  # (loading lubridate, which RPostgres imports, asks timedatectl for the time
  # zone when TZ is unset, with a warning where systemd does not run)
  withr::with_envvar(c(TZ = "UTC"), testthat::skip_if_not_installed("RPostgres"))
  testthat::skip_if_not_installed(driver)
  cluster <- postgres_cluster()
  if (!is.null(cluster$skip)) {
    testthat::skip(cluster$skip)
  }
  cluster$databases <- cluster$databases + 1L
  name <- sprintf("profile_test_%d", cluster$databases)
  admin <- postgres_connect(cluster, "postgres")
  DBI::dbExecute(admin, paste("CREATE DATABASE", name))
  con <- postgres_connect(cluster, name, driver)
  withr::defer(
    {
      try(DBI::dbDisconnect(con), silent = TRUE)
      # connections of the test that are still open (a second connection)
      DBI::dbExecute(admin, sprintf(
        paste(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
          "WHERE datname = '%s' AND pid <> pg_backend_pid()"
        ),
        name
      ))
      DBI::dbExecute(admin, paste("DROP DATABASE", name))
      DBI::dbDisconnect(admin)
    },
    envir = env
  )
  con
}

postgres_connect <- function(cluster, dbname, driver = "RPostgres") {
  if (driver == "RPostgreSQL") {
    con <- DBI::dbConnect(RPostgreSQL::PostgreSQL(),
      host = "127.0.0.1", port = cluster$port, user = "postgres", dbname = dbname
    )
    # dbplyr warns, once per session, that RPostgreSQL has "an old dbplyr
    # interface": taken here, not by the first function a test expects to be
    # silent
    suppressWarnings(dplyr::tbl(con, dplyr::sql('SELECT 1 AS "one"')))
    return(con)
  }
  # The time zone given, and TZ set while connecting: RPostgres checks the
  # zone with lubridate, which otherwise asks the system (timedatectl, with a
  # warning where systemd does not run).
  withr::with_envvar(c(TZ = "UTC"), DBI::dbConnect(RPostgres::Postgres(),
    host = "127.0.0.1", port = cluster$port, user = "postgres", dbname = dbname,
    timezone = "UTC", timezone_out = "UTC"
  ))
}

# The test run's PostgreSQL cluster: started at its first use with initdb and
# pg_ctl in a directory under /tmp (as root, the server runs as the user
# `postgres`, which cannot enter R's private temporary directory), on a free
# port of 127.0.0.1, and stopped and removed when the test run ends. An
# environment with `port`, or with `skip` (the reason) when it cannot start.
postgres_cluster <- function() {
  if (is.null(postgres_state$cluster)) {
    postgres_state$cluster <- start_postgres_cluster()
  }
  postgres_state$cluster
}

postgres_state <- new.env(parent = emptyenv())

start_postgres_cluster <- function() {
  cluster <- new.env(parent = emptyenv())
  cluster$databases <- 0L
  bin <- postgres_bin_dir()
  if (is.null(bin)) {
    cluster$skip <- "PostgreSQL's server programs (initdb, pg_ctl) are not installed"
    return(cluster)
  }
  as_user <- postgres_run_as()
  if (is.null(as_user)) {
    cluster$skip <- "running as root without a `postgres` user (and runuser) to run the server as"
    return(cluster)
  }
  dir <- tempfile("profile-pg-", tmpdir = "/tmp")
  if (!dir.create(dir) || !Sys.chmod(dir, "0777", use_umask = FALSE)) {
    cluster$skip <- sprintf("cannot create a directory for the cluster (%s)", dir)
    return(cluster)
  }
  run <- function(program, args) {
    command <- if (length(as_user)) "runuser" else file.path(bin, program)
    args <- if (length(as_user)) c(as_user, file.path(bin, program), args) else args
    system2(
      command,
      shQuote(args),
      stdout = file.path(dir, "setup.log"),
      stderr = file.path(dir, "setup.log")
    )
  }
  data <- file.path(dir, "data")
  init <- c("-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale")
  if (run("initdb", init) != 0) {
    return(failed_cluster(cluster, dir, "initdb failed:", "setup.log"))
  }
  port <- free_port()
  options <- sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir)
  start <- c("-D", data, "-o", options, "-l", file.path(dir, "server.log"), "-w", "start")
  if (run("pg_ctl", start) != 0) {
    return(failed_cluster(cluster, dir, "pg_ctl start failed:", "server.log"))
  }
  cluster$port <- port
  cluster$dir <- dir
  withr::defer(
    {
      run("pg_ctl", c("-D", data, "-m", "immediate", "-w", "stop"))
      unlink(dir, recursive = TRUE)
      postgres_state$cluster <- NULL
    },
    envir = testthat::teardown_env()
  )
  cluster
}

# The arguments of runuser that run the server as the user `postgres` when this
# session is root (initdb refuses to run as root): character() when it is not,
# NULL when there is no such user or no runuser.
postgres_run_as <- function() {
  if (!identical(Sys.info()[["effective_user"]], "root")) {
    return(character())
  }
  can <- nzchar(Sys.which("runuser")) &&
    system2("id", c("-u", "postgres"), stdout = FALSE, stderr = FALSE) == 0
  if (can) c("-u", "postgres", "--")
}

# `cluster` with the reason it cannot start (`what`, then the log file `log`
# of `dir`); the cluster's directory is removed.
failed_cluster <- function(cluster, dir, what, log) {
  cluster$skip <- paste(what, paste(readLines(file.path(dir, log)), collapse = " "))
  unlink(dir, recursive = TRUE)
  cluster
}

# The directory of initdb and pg_ctl: on the PATH, or Debian's
# /usr/lib/postgresql/<version>/bin (the newest).
postgres_bin_dir <- function() {
  on_path <- Sys.which(c("initdb", "pg_ctl"))
  if (all(nzchar(on_path))) {
    return(dirname(on_path[[1L]]))
  }
  dirs <- Sys.glob("/usr/lib/postgresql/*/bin")
  dirs <- dirs[file.exists(file.path(dirs, "initdb")) & file.exists(file.path(dirs, "pg_ctl"))]
  if (!length(dirs)) {
    return(NULL)
  }
  versions <- numeric_version(basename(dirname(dirs)), strict = FALSE)
  dirs[order(versions, decreasing = TRUE)][[1L]]
}

# A TCP port of 127.0.0.1 that nothing listens on. The ports tried start at
# an offset given by the process id, so that test runs at the same time try
# different ones.
free_port <- function() {
  for (port in 40000L + (Sys.getpid() + 0:200) %% 20000L) {
    socket <- tryCatch(serverSocket(port), error = function(e) NULL)
    if (!is.null(socket)) {
      close(socket)
      return(port)
    }
  }
  testthat::skip("no free TCP port for PostgreSQL")
}

# The number of rows of each profile table of `con`, and of the tables of the
# layout under the views.
db_row_counts <- function(con) {
  layout <- c(
    "profile_samples", "profile_stacks", "profile_stack_frames", "profile_value_types",
    "profile_value_slots", "profile_source_stacks", "profile_db_info"
  )
  tables <- intersect(c(v2_schema()$tables, layout), db_relations(con)$name)
  counts <- vapply(tables, function(t) {
    as.numeric(
      DBI::dbGetQuery(con, paste("SELECT COUNT(*) AS n FROM", DBI::dbQuoteIdentifier(con, t)))$n
    )
  }, numeric(1))
  counts
}

# The tables of a database-backed profile in memory, as the package reads them.
collected_tables <- function(db) {
  dm::dm_get_tables(local_profile(db))
}

# Every summary of a profile: each summable sample type, by each grouping.
all_summaries <- function(x, types) {
  out <- list()
  for (type in types) {
    for (by in c("function", "location", "line", "source")) {
      out[[paste(type, by)]] <- profile_summary(x, type = type, by = by, n = Inf)
    }
  }
  out
}

# The summable sample types of the sample files (sample_profiles()).
summable_sample_types <- c("samples", "alloc_size", "cpu", "alloc_space", "contentions")

# Every summary, the folded stacks of each type and the pprof file written,
# as what they say (not the ids).
everything_shown <- function(x, types = summable_sample_types) {
  present <- unique(dplyr::collect(x$sample_values)$type)
  types <- intersect(types, present)
  folded <- lapply(types, function(type) {
    path <- withr::local_tempfile(fileext = ".folded")
    write_folded(x, path, type = type)
    sort(readLines(path))
  })
  list(summaries = all_summaries(x, types), folded = folded)
}

# The package's sample files: real Rprof files and real Go profiles (see
# data-raw/README.md), read.
sample_profiles <- function() {
  rprof <- c("1.out", "gc.out", "line.out", "memory.out", "append.out")
  pprof <- c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz", "block.pb.gz", "mutex.pb.gz")
  c(
    lapply(sample_path("rprof", rprof), read_rprof),
    lapply(sample_path("pprof", pprof), read_pprof)
  )
}

# Runs `expr` (a statement that inserts a row breaking a key) so that the
# database lets it through: SQLite does not check foreign keys unless asked;
# PostgreSQL skips them in a replication session.
without_key_checks <- function(con, expr) {
  if (inherits(con, c("PqConnection", "PostgreSQLConnection"))) {
    DBI::dbExecute(con, "SET session_replication_role = replica")
    on.exit(DBI::dbExecute(con, "SET session_replication_role = DEFAULT"))
  }
  force(expr)
}
