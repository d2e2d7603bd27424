# The process of each source of a recording of parallel code through the
# writers: pprof sample labels (`pid`, `host`, `process`; the oracle: `go tool
# pprof -tags`), OTLP resource attributes (`process.pid`, `host.name`; the
# oracle: protobufjs's decoding of the file, helper-otlp-oracle.R) read back
# into the process columns, and speedscope's profiles named by process. The
# fixture is a real recording (small_parallel_recording(), helper-workers.R).

# Per process id, the seconds of the recording's samples (from the tables).
seconds_by_process <- function(x) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  ticks <- tables$sample_values[tables$sample_values$type == "samples", ]
  source <- tables$samples$source_id[match(ticks$sample_id, tables$samples$sample_id)]
  at <- match(source, tables$sources$source_id)
  seconds <- ticks$value * tables$sources$period[at] / 1e9
  out <- tapply(seconds, tables$sources$process_id[at], sum)
  stats::setNames(as.numeric(out), names(out))
}

test_that("write_pprof() labels each sample with its process, as go tool pprof -tags shows", {
  skip_on_os("windows")
  skip_if_no_go()
  x <- small_parallel_recording()
  sources <- dm::dm_get_tables(x)$sources
  path <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(x, path)
  tags <- go_pprof("tags", path, c("-sample_index=cpu", "-unit=ms"))
  # `-tags` lists each label key, then one line per value: "<amount> (<pct>): <value>"
  key_at <- grep("^ *[a-z]+: Total", tags)
  keys <- sub("^ *([a-z]+):.*", "\\1", tags[key_at])
  expect_true(all(c("pid", "host", "process") %in% keys))
  values_of <- function(key) {
    from <- key_at[match(key, keys)] + 1L
    to <- c(key_at, length(tags) + 1L)[match(key, keys) + 1L] - 1L
    rows <- grep("):", tags[from:to], value = TRUE, fixed = TRUE)
    amount <- as.numeric(sub("^ *([0-9.]+)ms.*", "\\1", rows))
    stats::setNames(amount / 1000, trimws(sub(".*\\): *", "", rows)))
  }
  # every process's time, as the profile has it (`-unit=ms` shows a number
  # without a unit in milliseconds too: "4242ms")
  pids <- values_of("pid")
  names(pids) <- sub("ms$", "", names(pids))
  ours <- seconds_by_process(x)
  expect_setequal(names(pids), names(ours))
  expect_equal(pids[names(ours)], ours, tolerance = 1e-6)
  expect_setequal(names(values_of("process")), c("main", "worker"))
  expect_identical(names(values_of("host")), Sys.info()[["nodename"]])
  # read back: labels of the samples (pprof has no processes of its own)
  back <- dm::dm_get_tables(read_pprof(path))
  expect_setequal(unique(back$sample_labels$key), c("pid", "host", "process"))
  # (the tasks and waits, as ?write_pprof says, are not written)
  expect_true(all(c("tasks", "waits") %in% names(dm::dm_get_tables(x))))
  expect_false(any(c("tasks", "waits") %in% names(back)))
  expect_setequal(
    unique(back$sample_labels$num[back$sample_labels$key == "pid"]),
    as.numeric(sources$process_id)
  )
  # a profile without processes gets no such labels
  plain <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(read_rprof(sample_path("rprof", "1.out")), plain)
  expect_false(any(grepl("^ *pid: Total", go_pprof("tags", plain))))
})

test_that("write_otlp() gives each process a resource with process.pid and host.name; read back", {
  skip_on_os("windows")
  skip_if_no_otlp_oracle()
  x <- small_parallel_recording()
  sources <- dm::dm_get_tables(x)$sources
  path <- withr::local_tempfile(fileext = ".pb")
  write_otlp(x, path)
  decoded <- jsonlite::fromJSON(otlp_to_json(path), simplifyVector = FALSE)
  resources <- lapply(decoded$resourceProfiles, function(rp) {
    attrs <- rp$resource$attributes
    value <- function(key) {
      hit <- Filter(function(a) identical(a$key, key), attrs)
      if (length(hit)) unlist(hit[[1]]$value)[[1]] else NA
    }
    data.frame(
      pid = as.integer(value("process.pid")), host = value("host.name"),
      role = value("r.profile.process_role")
    )
  })
  resources <- do.call(rbind, resources)
  expect_identical(nrow(resources), 3L)
  expect_setequal(resources$pid, sources$process_id)
  expect_true(all(resources$host == Sys.info()[["nodename"]]))
  expect_identical(
    resources$role[match(sources$process_id, resources$pid)], sources$process_role
  )
  # read back: the process columns as they were (the tasks and waits, as
  # ?write_otlp says, not written)
  expect_false(any(c("tasks", "waits") %in% names(dm::dm_get_tables(read_otlp(path)))))
  back <- dm::dm_get_tables(read_otlp(path))$sources
  expect_identical(
    back[order(back$process_id), c("process_id", "host_name", "process_role")],
    sources[order(sources$process_id), c("process_id", "host_name", "process_role")],
    ignore_attr = TRUE
  )
})

test_that("write_speedscope() names each process's profiles by the process", {
  skip_on_os("windows")
  x <- small_parallel_recording()
  sources <- dm::dm_get_tables(x)$sources
  path <- withr::local_tempfile(fileext = ".speedscope.json")
  write_speedscope(x, path)
  file <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  names <- vapply(file$profiles, function(p) p$name, "")
  # speedscope's file format has a place for neither tasks nor waits
  expect_true(all(names(file) %in% c(
    "$schema", "shared", "profiles", "name",
    "activeProfileIndex", "exporter"
  )))
  for (i in seq_len(nrow(sources))) {
    process <- sprintf("%s process %d", sources$process_role[[i]], sources$process_id[[i]])
    expect_true(any(grepl(process, names, fixed = TRUE)), label = process)
  }
})
