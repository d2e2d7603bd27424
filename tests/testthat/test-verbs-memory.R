# A verb whose scratch memory is not there (a `ulimit -v`, as in a container)
# gives a profile_error_limit, not an abort: it runs in a child R process
# whose address space is capped just above what the profile and its copy in
# Rust need, so that the verb's own vectors (the groups of
# profile_aggregate(), some tens of bytes per sample) are what no longer fit
# (with vectors asked for infallibly, Rust would abort the process there).
# The cap comes from a first child without one: the address space in use
# before the verb, plus the columns' size, plus 20 bytes per sample.

# The lines of a child that makes a profile of `n` samples of two frames and
# one value each (the tables of an Rprof file of one such sample, read by this
# process into `tables_rds`, their rows repeated in R: nothing but the verb
# runs in Rust under the cap, and a read keeps room for its threads) and
# prints the address space in use (VmSize, KB), the bytes of the columns the
# verb gets, and what profile_aggregate() gave (its error's classes, or "ok").
aggregate_child_script <- function(n, tables_rds) {
  c(
    "suppressPackageStartupMessages(library(profile))",
    sprintf("tables <- readRDS(%s)", deparse(tables_rds)),
    sprintf("n <- %dL", as.integer(n)),
    "tables$samples <- tables$samples[rep(1L, n), ]",
    "tables$samples$sample_id <- seq_len(n)",
    "tables$sample_values <- tables$sample_values[rep(1L, n), ]",
    "tables$sample_values$sample_id <- seq_len(n)",
    "tables$sample_locations <- tables$sample_locations[rep(1:2, n), ]",
    "tables$sample_locations$sample_id <- rep(seq_len(n), each = 2L)",
    "x <- profile:::dm_from_v2_tables(tables)",
    "sent <- c('samples', 'sample_values', 'sample_locations', 'sample_labels', 'locations')",
    "bytes <- sum(vapply(tables[intersect(sent, names(tables))], function(t) {",
    "  sum(vapply(t, function(col) length(col) * if (is.double(col)) 8 else 4, 1))",
    "}, 1))",
    "rm(tables)",
    "invisible(gc())",
    "vm <- function() {",
    "  status <- readLines('/proc/self/status')",
    "  as.numeric(gsub('[^0-9]', '', grep('^VmSize:', status, value = TRUE)))",
    "}",
    "before <- vm()",
    "res <- tryCatch({ profile_aggregate(x); 'ok' },",
    "  error = function(e) paste(class(e), collapse = ' '))",
    "cat('RESULT', before, format(bytes, scientific = FALSE), res, '\\n')"
  )
}

# Runs the script in a child R process (with its address space capped at
# `address_space` KB unless NULL); its output lines.
run_child <- function(lines, address_space = NULL) {
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script), add = TRUE)
  writeLines(lines, script)
  rscript <- shQuote(file.path(R.home("bin"), "Rscript"))
  command <- sprintf("exec %s --vanilla %s 2>&1", rscript, shQuote(script))
  if (!is.null(address_space)) {
    command <- sprintf("ulimit -v %.0f && %s", address_space, command)
  }
  env <- c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)), "R_TESTS=")
  suppressWarnings(system2("bash", c("-c", shQuote(command)), stdout = TRUE, env = env))
}

# The fields of the child's RESULT line, or NULL if it printed none (it ended
# before: an abort).
child_result <- function(output) {
  line <- grep("^RESULT ", output, value = TRUE)
  if (!length(line)) {
    return(NULL)
  }
  fields <- strsplit(trimws(line[[1]]), " ", fixed = TRUE)[[1]]
  list(
    before_kb = as.numeric(fields[[2]]), bytes = as.numeric(fields[[3]]),
    class = fields[-(1:3)]
  )
}

test_that("a verb whose scratch memory is refused gives profile_error_limit", {
  skip_unless_capped_processes()
  n <- 2e6
  path <- withr::local_tempfile(fileext = ".out")
  writeLines(c("sample.interval=20000", "\"f\" \"g\" "), path)
  tables_rds <- withr::local_tempfile(fileext = ".rds")
  saveRDS(dm::dm_get_tables(read_rprof(path), keyed = FALSE), tables_rds)
  lines <- aggregate_child_script(n, tables_rds)
  free <- child_result(run_child(lines))
  expect_false(is.null(free), label = "the child without a cap reported")
  skip_if(is.null(free))
  expect_identical(free$class, "ok")
  cap_kb <- free$before_kb + (free$bytes + 20 * n) / 1024
  output <- run_child(lines, address_space = cap_kb)
  capped <- child_result(output)
  if (is.null(capped)) {
    fail(paste(c("profile_aggregate() ended the capped R process:", output), collapse = "\n"))
  }
  skip_if(is.null(capped))
  expect_true("profile_error_limit" %in% capped$class,
    label = paste("the capped child's error is a limit error:", paste(capped$class, collapse = "/"))
  )
})
