# Runs CRAN profile 1.0.4 -- the implementation this package replaces -- in a
# separate R process, to compare our v1 output with its output.
#
# 1.0.4 runs with the C collation (see profile104_child_code), so the ids it
# gives are those of byte order, which is what this package gives in any locale.
#
# 1.0.4 has the same package name as this package, so it lives in a library of
# its own (env var PROFILE_104_LIB, default ~/.cache/profile-1.0.4, then
# /opt/profile-1.0.4) and is never loaded into the test process.
#
# - `profile104_read(path)`: 1.0.4's `read_rprof(path)`;
# - `profile104_read(path, fun = "read_pprof")`: its `read_pprof(path)`;
# - `profile104_call("validate_profile", list(list(x1), list(x2)))`: any of its
#   functions.
#
# Tests that use them call skip_if_no_profile104() first (the functions skip
# too, when 1.0.4 is not available). A comparison whose reference cannot run
# skips with the reason instead of failing: R CMD check --as-cran gives the tests
# a library of this package's declared dependencies only, where 1.0.4 finds
# what it imports but not RProtoBuf, which its pprof functions need.

profile104_lib <- function() {
  candidates <- c(
    Sys.getenv("PROFILE_104_LIB"),
    path.expand("~/.cache/profile-1.0.4"),
    "/opt/profile-1.0.4"
  )
  for (lib in candidates[nzchar(candidates)]) {
    desc <- file.path(lib, "profile", "DESCRIPTION")
    if (file.exists(desc) && identical(unname(read.dcf(desc, "Version")[1, 1]), "1.0.4")) {
      return(lib)
    }
  }
  NULL
}

# `needs`: packages the comparison needs in 1.0.4's process beyond what 1.0.4
# imports (see profile104_needs()).
skip_if_no_profile104 <- function(needs = character()) {
  # dev/check.sh sets PROFILE_SKIP_104: R CMD check runs the suite a second time,
  # after dev/test.sh has already run these slow comparisons.
  if (nzchar(Sys.getenv("PROFILE_SKIP_104"))) {
    testthat::skip("comparisons with profile 1.0.4 are switched off (PROFILE_SKIP_104)")
  }
  if (is.null(profile104_lib())) {
    testthat::skip("CRAN profile 1.0.4 is not installed (set PROFILE_104_LIB)")
  }
  reason <- profile104_cannot_run(needs)
  if (!is.null(reason)) {
    testthat::skip(reason)
  }
}

# The packages 1.0.4's function `fun` needs beyond those 1.0.4 imports (it only
# suggests them, and stops without them).
profile104_needs <- function(fun) {
  switch(fun,
    read_pprof = ,
    write_pprof = ,
    msg_to_ds = ,
    ds_to_msg = "RProtoBuf",
    dm_from_profile = "dm",
    character()
  )
}

# Why 1.0.4 cannot run with `needs` in a child process of this session (started
# as profile104_call() starts it, with the same library paths), or NULL when it
# can. Checked once per session for each set of packages.
profile104_cannot_run <- function(needs = character()) {
  key <- paste(c("can run", sort(needs)), collapse = "\r")
  if (!exists(key, envir = profile104_cache, inherits = FALSE)) {
    code <- paste(
      "args <- commandArgs(trailingOnly = TRUE)",
      "loaded <- tryCatch({",
      "  loadNamespace('profile', lib.loc = args[[1]]); ''",
      "}, error = conditionMessage)",
      "missing <- Filter(function(p) !requireNamespace(p, quietly = TRUE), args[-1])",
      "cat(if (nzchar(loaded)) {",
      "  paste('load', loaded)",
      "} else if (length(missing)) {",
      "  paste('missing', paste(missing, collapse = ', '))",
      "} else 'ok')",
      sep = "\n"
    )
    script <- tempfile(fileext = ".R")
    on.exit(unlink(script), add = TRUE)
    writeLines(code, script)
    out <- suppressWarnings(system2(
      file.path(R.home("bin"), "Rscript"),
      c("--vanilla", shQuote(script), shQuote(profile104_lib()), shQuote(needs)),
      stdout = TRUE, stderr = FALSE
    ))
    out <- paste(out, collapse = " ")
    reason <- if (identical(out, "ok")) {
      NULL
    } else if (startsWith(out, "missing ")) {
      paste0(
        "profile 1.0.4 cannot run this comparison: it needs ", sub("^missing ", "", out),
        ", which is not installed in the library paths the tests run with",
        " (R CMD check --as-cran gives the tests the declared dependencies only)"
      )
    } else {
      paste(
        "profile 1.0.4 cannot be loaded in the library paths the tests run with:",
        sub("^load ", "", out)
      )
    }
    assign(key, reason, envir = profile104_cache)
  }
  get(key, envir = profile104_cache, inherits = FALSE)
}

# The child: loads 1.0.4 from its library, calls `fun` once per element of
# `calls` (each a list of arguments), and saves for each the value, the error
# message (or NULL) and the warning messages.
profile104_child_code <- '
args <- commandArgs(trailingOnly = TRUE)
# 1.0.4 numbered functions and locations in the order of sort() and merge(),
# which follow the collation of the locale; ours are in byte order, which is
# what 1.0.4 gives in the C locale.
invisible(Sys.setlocale("LC_COLLATE", "C"))
input <- readRDS(args[[1]])
suppressPackageStartupMessages(library("profile", lib.loc = args[[3]], character.only = TRUE))
stopifnot(identical(as.character(utils::packageVersion("profile")), "1.0.4"))
fun <- get(input$fun, envir = asNamespace("profile"))
results <- lapply(input$calls, function(call_args) {
  warnings <- character()
  value <- NULL
  error <- NULL
  value <- tryCatch(
    withCallingHandlers(
      do.call(fun, call_args),
      warning = function(w) {
        warnings <<- c(warnings, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    ),
    error = function(e) {
      error <<- conditionMessage(e)
      NULL
    }
  )
  # RProtoBuf messages (the .msg component of pprof reads) cannot cross processes
  if (is.list(value) && ".msg" %in% names(value)) value$.msg <- NULL
  list(value = value, error = error, warnings = warnings)
})
saveRDS(results, args[[2]])
'

# Calls 1.0.4's `fun` (any function of its namespace, by name) once per element
# of `calls`, a list of argument lists, in one R process. Returns a list with,
# for each call, `value`, `error` (message or NULL) and `warnings` (messages).
profile104_call <- function(fun, calls) {
  skip_if_no_profile104(profile104_needs(fun))
  dir <- tempfile("profile104")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  script <- file.path(dir, "child.R")
  input <- file.path(dir, "input.rds")
  output <- file.path(dir, "output.rds")
  writeLines(profile104_child_code, script)
  saveRDS(list(fun = fun, calls = calls), input)
  log <- system2(
    file.path(R.home("bin"), "Rscript"),
    c("--vanilla", shQuote(script), shQuote(input), shQuote(output), shQuote(profile104_lib())),
    stdout = TRUE, stderr = TRUE
  )
  if (!file.exists(output)) {
    stop("profile 1.0.4 child process failed:\n", paste(log, collapse = "\n"), call. = FALSE)
  }
  readRDS(output)
}

profile104_cache <- new.env(parent = emptyenv())

# 1.0.4's reader `fun` on the file `path`: its result, read back in this
# process (without the `.msg` component of pprof reads: RProtoBuf messages
# cannot cross processes). Its warnings are signalled again here (class `profile104_warning`)
# and its error becomes an error of class `profile104_error`. Results are
# cached for the test session.
profile104_read <- function(path, fun = "read_rprof") {
  path <- normalizePath(path, mustWork = TRUE)
  key <- paste(fun, path, file.mtime(path), sep = "\r")
  res <- profile104_cache[[key]]
  if (is.null(res)) {
    res <- profile104_call(fun, list(list(path)))[[1]]
    profile104_cache[[key]] <- res
  }
  for (w in res$warnings) {
    warning(warningCondition(w, class = "profile104_warning"))
  }
  if (!is.null(res$error)) {
    stop(errorCondition(
      paste0("profile 1.0.4's ", fun, "() failed: ", res$error),
      class = "profile104_error"
    ))
  }
  res$value
}

# 1.0.4's validate_profile() on each element of `xs`: TRUE where it accepts.
profile104_accepts <- function(xs) {
  res <- profile104_call("validate_profile", lapply(xs, list))
  vapply(res, function(r) is.null(r$error), logical(1))
}
