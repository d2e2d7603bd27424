# v1 objects read from pprof files go through write_pprof() and back
# unchanged: read_pprof(version = "1.0") -> write_pprof() -> read_pprof(version
# = "1.0") gives identical tables, also where functions have an empty system
# name (read as "<?>", as profile 1.0.4 reads it).

# Every pprof file the tests use: the package's samples (Go's profiles, the
# second run, profile 1.0's proto sample), pprof files written from the Rprof
# samples (frames of R code), and a Go CPU profile whose functions have an
# empty system name (written from the Go file with those names emptied; Go's
# parser reads it, see the test below).
pprof_test_files <- function(dir) {
  shipped <- c(
    list.files(sample_path("pprof"), full.names = TRUE),
    list.files(sample_path("pprof-second-run"), full.names = TRUE),
    list.files(sample_path("proto"), full.names = TRUE)
  )
  written <- vapply(c("1.out", "line.out", "memory.out", "toplevel.out"), function(name) {
    path <- file.path(dir, paste0("written-", sub("[.]out$", "", name), ".pb.gz"))
    write_pprof(read_rprof(sample_path("rprof", name)), path)
    path
  }, "")
  c(shipped, written, no_system_names = pprof_without_system_names(dir))
}

# The Go CPU profile with every other function's system name empty, written
# as a pprof file.
pprof_without_system_names <- function(dir) {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz")) |>
    dm::dm_zoom_to(functions) |>
    dplyr::mutate(system_name = dplyr::if_else(function_id %% 2L == 0L, "", system_name)) |>
    dm::dm_update_zoomed()
  path <- file.path(dir, "no-system-names.pb.gz")
  write_pprof(x, path)
  path
}

test_that("v1 objects read from pprof files survive write_pprof() and read_pprof() unchanged", {
  dir <- withr::local_tempdir()
  files <- pprof_test_files(dir)
  round_tripped <- 0L
  for (path in files) {
    first <- tryCatch(
      read_pprof(path, version = "1.0"),
      profile_error_unsupported = function(e) NULL
    )
    if (is.null(first)) {
      # no sample counts first (heap, goroutine, ...): v1 cannot hold them, as
      # with profile 1.0.4
      expect_error(read_pprof(path, version = "1.0"), class = "profile_error_unsupported")
      next
    }
    out <- file.path(dir, paste0("v1-", basename(path)))
    write_pprof(first, out)
    second <- read_pprof(out, version = "1.0")
    expect_identical(strip_dotted(second), strip_dotted(first), info = basename(path))
    round_tripped <- round_tripped + 1L
  }
  # the Go CPU profiles, profile 1.0's file, the Rprof files written as pprof
  # and the file without system names
  expect_gte(round_tripped, 8L)

  # The file without system names has them: read as "<?>" in v1, as 1.0.4
  # reads an empty name, and kept through the round trip.
  v1 <- read_pprof(files[["no_system_names"]], version = "1.0")
  unknown <- v1$functions$system_name == "<?>"
  expect_gt(sum(unknown), 0L)
  expect_false(any(v1$functions$name[unknown] == "<?>"))
})

test_that("the file without system names is a pprof file Go reads, with empty system names", {
  skip_if_no_go()
  dir <- withr::local_tempdir()
  path <- pprof_without_system_names(dir)
  raw <- go_pprof("raw", path)
  x <- read_pprof(path)
  emptied <- x$functions$name[x$functions$system_name == ""]
  expect_gt(length(emptied), 0L)
  # go tool pprof -raw adds "(system name)" after a location's line where the
  # system name is not the name: "()" for an empty one
  # (a location's line: "<id>: <address> M=<mapping> <name> <file>:<line> s=<start>")
  lines <- trimws(raw[grepl(paste0(" ", emptied[[1]], " "), raw, fixed = TRUE)])
  expect_gt(length(lines), 0L)
  expect_true(all(endsWith(lines, "()")))
})
