# Every install path has a working viewer: a fresh clone of the git
# repository, installed with `R CMD INSTALL .` (what pak and remotes do with a
# repository) while npm, npx and node are shadowed on the PATH by stubs that
# fail and record any call, gives a profile_view() whose file holds the
# package's renderer and draws in chromium. It builds the package from
# scratch (minutes), so it runs in CI (CI=true) or when PROFILE_TEST_INSTALL
# is "true", from a git checkout.

test_that("a fresh clone installed with R CMD INSTALL and no npm has a working profile_view()", {
  skip_on_cran()
  wanted <- c(Sys.getenv("CI"), Sys.getenv("PROFILE_TEST_INSTALL")) == "true"
  if (!any(wanted)) {
    skip("installs a fresh clone (minutes): set PROFILE_TEST_INSTALL=true (CI does)")
  }
  root <- normalizePath(test_path("..", ".."), mustWork = FALSE)
  git <- function(...) system2("git", c("-C", shQuote(root), ...), stdout = FALSE, stderr = FALSE)
  if (!nzchar(Sys.which("git")) || git("rev-parse", "HEAD") != 0) {
    skip("not in a git checkout of the package")
  }
  head <- system2("git", c("-C", shQuote(root), "rev-parse", "HEAD"), stdout = TRUE)
  work <- withr::local_tempdir()
  clone <- file.path(work, "profile")
  expect_identical(system2(
    "git", c("clone", "--quiet", "--no-hardlinks", shQuote(root), shQuote(clone))
  ), 0L)
  expect_identical(system2("git", c("-C", shQuote(clone), "checkout", "--quiet", head)), 0L)
  # nothing of the view's is fetched: the clone has it
  view_files <- file.path(clone, "inst", "htmlwidgets", "lib", "profile-view")
  expect_true(file.exists(file.path(view_files, "pv-flame.js")))

  # stubs for npm, npx and node first on the PATH
  stubs <- file.path(work, "stubs")
  dir.create(stubs)
  called <- file.path(work, "called")
  for (tool in c("npm", "npx", "node")) {
    stub <- c("#!/bin/sh", sprintf("echo %s \"$@\" >> '%s'", tool, called), "exit 127")
    writeLines(stub, file.path(stubs, tool))
    Sys.chmod(file.path(stubs, tool), "755")
  }
  path <- paste(stubs, Sys.getenv("PATH"), sep = .Platform$path.sep)
  lib <- file.path(work, "lib")
  dir.create(lib)
  log <- file.path(work, "install.log")
  status <- withr::with_dir(clone, system2(
    file.path(R.home("bin"), "R"), c("CMD", "INSTALL", "--no-multiarch", "-l", shQuote(lib), "."),
    stdout = log, stderr = log,
    env = c(
      paste0("PATH=", shQuote(path)), "CARGO_PROFILE_RELEASE_LTO=false",
      "CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16"
    )
  ))
  expect_identical(status, 0L, label = paste(utils::tail(readLines(log), 20), collapse = "\n"))
  expect_false(file.exists(called), label = "npm, npx or node was called")

  # the installed package writes a view with its renderer in it
  html <- file.path(work, "view.html")
  script <- file.path(work, "view.R")
  writeLines(c(
    "library(profile)",
    "x <- read_rprof(system.file('samples/rprof/line.out', package = 'profile'))",
    sprintf("profile_view(x, file = '%s')", html),
    "w <- profile_view(x)",
    "stopifnot(inherits(w, 'htmlwidget'))"
  ), script)
  status <- system2(file.path(R.home("bin"), "Rscript"), shQuote(script),
    stdout = log, stderr = log,
    env = c(paste0("R_LIBS=", shQuote(lib)), paste0("PATH=", shQuote(path)))
  )
  expect_identical(status, 0L, label = paste(readLines(log), collapse = "\n"))
  text <- paste(readLines(html, warn = FALSE), collapse = "\n")
  expect_true(grepl("ProfileView.render", text, fixed = TRUE))
  expect_true(grepl("class FlameCanvas", text, fixed = TRUE))

  # and it draws, offline
  skip_if_no_browser()
  result <- run_browser_job(list(command = "view", html = html))
  for (what in c("console", "errors", "dialogs", "requests")) {
    expect_identical(length(unlist(result[[what]])), 0L, label = what)
  }
  frames <- view_frames(result$states[1, ])
  expect_true(all(c("time_round", "fib") %in% frames$name))
  expect_identical(result$states$pixels_wrong, 0L)
})
