# Profiles in a database (R/db*.R) on SQLite, DuckDB and a
# PostgreSQL server started by the test run (helper-db.R).

profiles <- sample_profiles()
combined <- combine_profiles(profiles)
summable_types <- setdiff(
  unique(dm::dm_get_tables(combined)$sample_values$type), v2_schema()$gauge_types
)

# Runs `tracer` at the start of each insert of rows by profile_db_append()
# (where `table` names the table) until untrace_insert() or the end of the
# test.
trace_insert <- function(tracer, env = parent.frame()) {
  suppressMessages(
    trace("db_insert_rows", tracer = tracer, where = asNamespace("profile"), print = FALSE)
  )
  withr::defer(untrace_insert(), envir = env)
}

untrace_insert <- function() {
  namespace <- asNamespace("profile")
  if (inherits(get("db_insert_rows", envir = namespace), "functionWithTrace")) {
    suppressMessages(untrace("db_insert_rows", where = namespace))
  }
}

# The same tests on each backend. (cyclocomp_linter would count the branches of
# all these tests' bodies as those of the loop.)
# nolint start: cyclocomp_linter.
for (backend in db_backends) {
  test_that(paste0(
    backend, ": appended sample files are combine_profiles() of them, summarised in the database"
  ), {
    con <- local_db(backend)
    # in three appends: one profile, several in one call, the rest
    db <- profile_db_append(con, profiles[[1]])
    db <- profile_db_append(con, profiles[[2]], profiles[[3]], profiles[[4]])
    db <- do.call(profile_db_append, c(list(con), profiles[-(1:4)]))
    expect_true(is_db_profile(db))

    # the same tables, ids included, as combining them in memory
    tables <- collected_tables(db)
    expect_identical(names(tables), names(dm::dm_get_tables(combined)))
    for (t in names(tables)) {
      expect_equal(as.data.frame(tables[[t]]), as.data.frame(dm::dm_get_tables(combined)[[t]]),
        ignore_attr = TRUE, info = t
      )
    }
    expect_silent(validate_profile(db))

    in_db <- all_summaries(db, summable_types)
    expect_identical(in_db, all_summaries(local_profile(db), summable_types))
    expect_identical(in_db, all_summaries(combined, summable_types))
    # the default type and the default rows
    expect_identical(profile_summary(db), profile_summary(combined))
    expect_identical(
      profile_summary(db, sort = "total", n = 3), profile_summary(combined, sort = "total", n = 3)
    )
  })

  test_that(paste0(
    backend, ": without merging, functions and locations repeat and summaries are the same"
  ), {
    con <- local_db(backend)
    for (p in profiles[c(1, 1, 6, 7)]) db <- profile_db_append(con, p, merge = FALSE)
    expect_silent(validate_profile(db))
    counts <- db_row_counts(con)
    unmerged <- combine_profiles(profiles[c(1, 1, 6, 7)], merge = FALSE)
    merged <- combine_profiles(profiles[c(1, 1, 6, 7)])
    expect_equal(counts[["functions"]], nrow(unmerged$functions))
    expect_gt(counts[["functions"]], nrow(merged$functions))
    types <- c("samples", "cpu", "alloc_space")
    expect_identical(all_summaries(db, types), all_summaries(merged, types))
  })

  test_that(paste0(backend, ": two appends of the same file give two sources"), {
    con <- local_db(backend)
    x <- read_rprof(sample_path("rprof", "1.out"))
    db <- profile_db_append(con, x)
    once <- db_row_counts(con)
    db <- profile_db_append(con, x)
    twice <- db_row_counts(con)
    sources <- collected_tables(db)$sources
    expect_identical(sources$source_id, 1:2)
    expect_identical(sources$source_uri, rep(sample_path("rprof", "1.out"), 2))
    per_sample <- c("samples", "sample_values", "sample_locations")
    expect_equal(twice[per_sample], 2 * once[per_sample])
    # merged: the functions and locations of the first append serve both
    expect_equal(twice[c("functions", "locations")], once[c("functions", "locations")])
    # in seconds, equal to the last bits (the database multiplies each stack's
    # sum of ticks by the interval); in ticks, exactly
    expect_equal(profile_summary(db, n = Inf), profile_summary(combine_profiles(x, x), n = Inf))
    expect_identical(
      profile_summary(db, n = Inf, type = "samples"),
      profile_summary(combine_profiles(x, x), n = Inf, type = "samples")
    )

    # one run found by its source (a dm_filter() away) summarises as the file
    second <- dm::dm_filter(db, sources = source_id == 2L)
    expect_equal(
      profile_summary(second, n = Inf)[c("name", "self", "total")],
      profile_summary(x, n = Inf)[c("name", "self", "total")]
    )
    expect_identical(
      profile_summary(second, n = Inf, type = "samples")[c("name", "self", "total")],
      profile_summary(x, n = Inf, type = "samples")[c("name", "self", "total")]
    )
  })

  test_that(paste0(
    backend, ": flame graphs, folded stacks and writers take the database's profile"
  ), {
    con <- local_db(backend)
    db <- do.call(profile_db_append, c(list(con), profiles))

    for (type in c("samples", "cpu", "alloc_space")) {
      grDevices::pdf(NULL)
      drawn <- profile_flamegraph(db, type = type)
      expected <- profile_flamegraph(combined, type = type)
      grDevices::dev.off()
      expect_equal(drawn, expected)
      ours <- withr::local_tempfile(fileext = ".folded")
      theirs <- withr::local_tempfile(fileext = ".folded")
      write_folded(db, ours, type = type)
      write_folded(combined, theirs, type = type)
      expect_identical(readLines(ours), readLines(theirs))
    }

    # Rprof: one segment per source, as in memory
    ours <- withr::local_tempfile(fileext = ".out")
    theirs <- withr::local_tempfile(fileext = ".out")
    expect_identical(write_rprof(db, ours), db)
    write_rprof(combined, theirs)
    expect_identical(readLines(ours), readLines(theirs))

    # pprof: aggregated in the database, so the samples differ but the totals
    # of every summable type, the stacks and the labels do not
    ours <- withr::local_tempfile(fileext = ".pb.gz")
    theirs <- withr::local_tempfile(fileext = ".pb.gz")
    write_pprof(db, ours)
    write_pprof(combined, theirs)
    ours <- read_pprof(ours)
    theirs <- read_pprof(theirs)
    expect_lt(nrow(ours$samples), nrow(theirs$samples))
    expect_identical(all_summaries(ours, summable_types), all_summaries(theirs, summable_types))
    labels <- function(p) {
      t <- dm::dm_get_tables(p)
      v <- t$sample_values[t$sample_values$type == "alloc_space", ]
      l <- merge(t$sample_labels, data.frame(sample_id = v$sample_id, amount = v$value))
      l <- stats::aggregate(amount ~ key + num, data = l, FUN = sum)
      l[order(l$key, l$num), ]
    }
    expect_equal(labels(ours), labels(theirs), ignore_attr = TRUE)
  })

  test_that(paste0(backend, ": validation catches a dangling key inserted by hand"), {
    con <- local_db(backend)
    x <- read_rprof(sample_path("rprof", "1.out"))
    # DuckDB checks foreign keys on every insert: there, tables without them
    db <- if (backend == "duckdb") {
      dm::copy_dm_to(con, x, temporary = FALSE, set_key_constraints = FALSE)
    } else {
      profile_db_append(con, x)
    }
    expect_silent(validate_profile(db))
    # a frame of the stack of sample 3 (in the layout's stack table, under
    # the view sample_locations) names a location that does not exist
    expected_sample <- 3
    without_key_checks(con, {
      if (backend == "duckdb") {
        DBI::dbExecute(con, paste(
          "INSERT INTO sample_locations (sample_id, depth, location_id)",
          "VALUES (3, 99, 99999)"
        ))
      } else {
        stack <- DBI::dbGetQuery(
          con, "SELECT stack_id FROM profile_samples WHERE sample_id = 3"
        )$stack_id
        expected_sample <- DBI::dbGetQuery(con, paste(
          "SELECT MIN(sample_id) AS s FROM profile_samples WHERE stack_id =", stack
        ))$s
        DBI::dbExecute(con, paste(
          "UPDATE profile_stack_frames SET location_id = 99999",
          "WHERE depth = 1 AND stack_id =", stack
        ))
      }
    })
    err <- expect_error(validate_profile(db), class = "profile_error_invalid")
    expect_match(conditionMessage(err), "sample_locations")
    expect_match(
      conditionMessage(err), "value 99999 has no match in `locations`.`location_id`",
      fixed = TRUE
    )
    expect_match(conditionMessage(err), paste("sample_id", expected_sample), fixed = TRUE)
    # the same defect as the database shows it, collected into memory
    if (backend != "duckdb") {
      expect_error(validate_profile(local_profile(db)), "99999", class = "profile_error_invalid")
    }
  })

  test_that(paste0(
    backend, ": a profile copied with dm::copy_dm_to() is validated and summarised in place"
  ), {
    con <- local_db(backend)
    x <- read_pprof(sample_path("pprof", "heap.pb.gz"))
    copied <- if (backend == "rpostgresql") {
      # dm::copy_dm_to() fails on RPostgreSQL connections in dm's own code
      # ("x must be character or SQL"): the same plain tables, written as 2.1
      # wrote them but without key constraints, as copy_dm_to() writes them
      write_db_21(con, list(x), keys = FALSE)
      profile_db(con)
    } else {
      dm::copy_dm_to(con, x, temporary = FALSE, set_key_constraints = FALSE)
    }
    expect_silent(validate_profile(copied))
    for (type in c("alloc_space", "inuse_space")) {
      expect_identical(
        profile_summary(copied, type = type, n = Inf), profile_summary(x, type = type, n = Inf)
      )
    }
    # the default type as go tool pprof chooses it
    expect_identical(
      attr(profile_summary(copied), "sample_type"), attr(profile_summary(x), "sample_type")
    )

    # the same defects as in memory: the same class and message, but for the
    # row, named by its sample in the database
    defects <- list(
      "UPDATE sample_locations SET depth = 40 WHERE sample_id = 2 AND depth = 1" = function(t) {
        stack <- t$sample_locations
        stack$depth[stack$sample_id == 2L & stack$depth == 1L] <- 40L
        t$sample_locations <- stack
        t
      },
      "UPDATE sample_values SET sample_id = 0 WHERE sample_id = 5" = function(t) {
        t$sample_values$sample_id[t$sample_values$sample_id == 5L] <- 0L
        t
      },
      "UPDATE samples SET source_id = NULL WHERE sample_id = 9" = function(t) {
        t$samples$source_id[t$samples$sample_id == 9L] <- NA_integer_
        t
      }
    )
    without_row <- function(e) {
      sub(", (row [0-9]+|a row with sample_id [0-9]+):", ":", conditionMessage(e))
    }
    for (statement in names(defects)) {
      DBI::dbWithTransaction(con, {
        DBI::dbExecute(con, statement)
        in_db <- expect_error(validate_profile(copied), class = "profile_error_invalid")
        DBI::dbBreak()
      })
      damaged <- defects[[statement]](dm::dm_get_tables(x))
      in_memory <- expect_error(
        validate_profile(dm::dm_mutate_tbl(x, !!!damaged)),
        class = "profile_error_invalid"
      )
      expect_identical(without_row(in_db), without_row(in_memory))
      expect_match(conditionMessage(in_db), "a row with sample_id", fixed = TRUE)
    }
    expect_silent(validate_profile(copied))
  })

  test_that(paste0(backend, ": an append that fails half-way leaves the database as it was"), {
    con <- local_db(backend)
    db <- profile_db_append(con, profiles[[1]])
    before <- db_row_counts(con)

    # an invalid profile: refused before anything is written
    bad <- dm::dm_get_tables(profiles[[6]])
    bad$sample_locations$location_id[[5]] <- 123456L
    bad <- dm::dm_mutate_tbl(profiles[[6]], sample_locations = bad$sample_locations)
    expect_error(profile_db_append(con, profiles[[2]], bad), class = "profile_error_invalid")
    expect_identical(db_row_counts(con), before)

    # the database refuses a row after the first tables were written
    trace_insert(quote(if (table == "profile_samples") stop("the disk is full")))
    err <- expect_error(profile_db_append(con, profiles[[6]]), class = "profile_error_io")
    untrace_insert()
    expect_match(conditionMessage(err$parent), "the disk is full")
    expect_identical(db_row_counts(con), before)

    # an interrupt
    trace_insert(quote(if (table == "profile_stack_frames") rlang::interrupt()))
    expect_error(profile_db_append(con, profiles[[6]]), "interrupted", class = "profile_error_io")
    untrace_insert()
    expect_identical(db_row_counts(con), before)

    # and the database still takes appends
    profile_db_append(con, profiles[[6]])
    expect_equal(db_row_counts(con)[["sources"]], before[["sources"]] + 1)
  })

  test_that(paste0(backend, ": a later append brings the columns the tables lack"), {
    con <- local_db(backend)
    profile_db_append(con, profiles[[1]])
    # a database made when the format had no `doc_url` and `drop_frames`
    for (col in c("doc_url", "drop_frames")) {
      DBI::dbExecute(con, paste("ALTER TABLE sources DROP COLUMN", col))
    }
    expect_false("doc_url" %in% DBI::dbListFields(con, "sources"))
    db <- profile_db_append(con, profiles[[6]])
    expect_true(all(c("doc_url", "drop_frames") %in% DBI::dbListFields(con, "sources")))
    sources <- collected_tables(db)$sources
    expect_identical(sources$doc_url, c(NA, dm::dm_get_tables(profiles[[6]])$sources$doc_url))
    expect_silent(validate_profile(db))
    expect_identical(
      profile_summary(db, type = "cpu", n = Inf),
      profile_summary(combine_profiles(profiles[c(1, 6)]), type = "cpu", n = Inf)
    )
  })
}
# nolint end

test_that("sqlite: a connection closed in the middle of an append leaves the file as it was", {
  path <- withr::local_tempfile(fileext = ".sqlite")
  con <- local_sqlite(path = path)
  profile_db_append(con, profiles[[1]])
  before <- db_row_counts(con)
  trace_insert(quote(if (table == "profile_samples") DBI::dbDisconnect(con)))
  expect_error(suppressWarnings(profile_db_append(con, profiles[[2]])), class = "profile_error")
  untrace_insert()
  again <- DBI::dbConnect(RSQLite::SQLite(), path)
  withr::defer(DBI::dbDisconnect(again))
  expect_identical(db_row_counts(again), before)
})

test_that("postgres: a backend killed in the middle of an append leaves the database as it was", {
  con <- local_db("postgres")
  profile_db_append(con, profiles[[1]])
  before <- db_row_counts(con)
  other <- postgres_connect(
    postgres_cluster(), DBI::dbGetQuery(con, "SELECT current_database() AS d")$d
  )
  withr::defer(DBI::dbDisconnect(other))
  pid <- DBI::dbGetQuery(con, "SELECT pg_backend_pid() AS pid")$pid
  kill <- substitute(
    if (table == "profile_samples") {
      DBI::dbGetQuery(OTHER, sprintf("SELECT pg_terminate_backend(%d)", PID))
    },
    list(OTHER = other, PID = pid)
  )
  trace_insert(kill)
  err <- expect_error(
    suppressWarnings(profile_db_append(con, profiles[[2]])),
    class = "profile_error_io"
  )
  untrace_insert()
  expect_match(conditionMessage(err$parent), "terminating connection")
  expect_identical(db_row_counts(other), before)
})

test_that("profile_db() opens the database's profile again; arguments are checked", {
  path <- withr::local_tempfile(fileext = ".sqlite")
  con <- local_sqlite(path = path)
  expect_error(profile_db(con), "no profile", class = "profile_error_invalid")
  profile_db_append(con, profiles[[1]], profiles[[6]])
  DBI::dbDisconnect(con)
  again <- DBI::dbConnect(RSQLite::SQLite(), path)
  withr::defer(DBI::dbDisconnect(again))
  db <- profile_db(again)
  expect_silent(validate_profile(db))
  expect_identical(profile_summary(db), profile_summary(combine_profiles(profiles[c(1, 6)])))

  expect_error(profile_db_append("db.sqlite", profiles[[1]]), class = "profile_error_argument")
  expect_error(
    profile_db_append(again, profiles[[1]], merge = NA),
    class = "profile_error_argument"
  )
  expect_error(profile_db_append(again, "not a profile"), class = "profile_error_argument")
  closed <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbDisconnect(closed)
  expect_error(profile_db(closed), "closed", class = "profile_error_argument")
})

test_that("a database-backed profile is appended to another database, and combined in memory", {
  from <- local_sqlite()
  to <- local_sqlite()
  source_db <- profile_db_append(from, profiles[[1]], profiles[[6]])
  db <- profile_db_append(to, source_db, profiles[[2]])
  expected <- combine_profiles(profiles[c(1, 6, 2)])
  expect_identical(profile_summary(db, n = Inf), profile_summary(expected, n = Inf))
  expect_identical(
    profile_summary(combine_profiles(source_db, profiles[[2]]), n = Inf),
    profile_summary(expected, n = Inf)
  )
})

test_that(paste(
  "meta keys of appended profiles follow combine_profiles()'s rule, with the first source as",
  "suffix"
), {
  con <- local_sqlite()
  with_meta <- function(x, value) {
    meta <- tibble::tibble(key = c("version", "host"), value = c("2.0", value))
    dm::dm_mutate_tbl(x, meta = meta)
  }
  profile_db_append(con, with_meta(profiles[[1]], "a"))
  profile_db_append(con, with_meta(profiles[[1]], "a"))
  db <- profile_db_append(con, with_meta(profiles[[1]], "b"))
  meta <- collected_tables(db)$meta
  expect_identical(meta$key, c("version", "host", "host@3"))
  expect_identical(meta$value, c("2.0", "a", "b"))
})

test_that("summaries in the database refuse NA values and repeated types as in memory", {
  con <- local_sqlite()
  x <- tiny_v2()
  copied <- dm::copy_dm_to(con, x, temporary = FALSE)
  DBI::dbExecute(con, "UPDATE sample_values SET value = NULL WHERE sample_id = 2")
  expect_error(profile_summary(copied), "is NA", class = "profile_error_invalid")
  DBI::dbExecute(con, "UPDATE sample_values SET value = 1 WHERE sample_id = 2")
  DBI::dbExecute(con, "INSERT INTO sample_values VALUES (2, 'samples', 'count', 1)")
  expect_error(
    profile_summary(copied), "two values of the chosen type",
    class = "profile_error_invalid"
  )
  expect_error(validate_profile(copied), "must be unique", class = "profile_error_invalid")
})

test_that(paste(
  "the verbs take a database-backed profile (read into memory) and agree with the profile in",
  "memory"
), {
  con <- local_sqlite()
  db <- do.call(profile_db_append, c(list(con), profiles))
  verbs <- list(
    focus = function(x) profile_focus(x, "fib"),
    ignore = function(x) profile_ignore(x, "runtime\\."),
    hide = function(x) profile_hide(x, "^runtime\\."),
    show = function(x) profile_show(x, "main"),
    show_from = function(x) profile_show_from(x, "^main\\."),
    prune_from = function(x) profile_prune_from(x, "^runtime\\."),
    filter_labels = function(x) profile_filter_labels(x, focus = "worker=hash|text"),
    select_types = function(x) profile_select_types(x, c("samples", "cpu")),
    scale = function(x) profile_scale(x, 3),
    aggregate = function(x) profile_aggregate(x),
    window = function(x) profile_window(x, from = 0.01, to = 0.5),
    diff = function(x) profile_diff(x, profiles[[1]]),
    diff_base = function(x) profile_diff(profiles[[2]], x)
  )
  for (verb in names(verbs)) {
    from_db <- verbs[[verb]](db)
    in_memory <- verbs[[verb]](combined)
    expect_false(is_db_profile(from_db))
    for (type in c("samples", "cpu")) {
      expect_identical(
        profile_summary(from_db, type = type, n = Inf),
        profile_summary(in_memory, type = type, n = Inf),
        info = verb
      )
    }
  }
  # narrowed to one run in the database first
  one_run <- profile_focus(dm::dm_filter(db, sources = source_id == 1L), "fib")
  expect_identical(
    profile_summary(one_run, n = Inf),
    profile_summary(profile_focus(profiles[[1]], "fib"), n = Inf)
  )
})
