# The R code's lints: lintr (Debian r-cran-lintr) with the settings of the
# committed `.lintr`, over the files lintr::lint_package() reads (R/, tests/,
# inst/, vignettes/, data-raw/), two files at a time.
#
#   Rscript dev/lint.R                 # every file; fails if there is a lint
#   Rscript dev/lint.R R/verbs.R ...   # some files
#
# Run it from the package root, against the package installed from this tree
# (dev/test.sh does both): lintr's object_usage_linter checks each function
# against the installed namespace, so an older installation would report the
# functions added since as undefined. The check refuses to run in that case.
args <- commandArgs(trailingOnly = TRUE)

if (!requireNamespace("lintr", quietly = TRUE)) {
  stop("dev/lint.R needs lintr: apt-get install r-cran-lintr (or install.packages(\"lintr\"))")
}
if (!file.exists(".lintr") || !dir.exists("R")) {
  stop("run dev/lint.R from the package root")
}

lintable <- function() {
  dirs <- c("R", "tests", "inst", "vignettes", "data-raw", "demo", "exec")
  pattern <- "[.]([Rr]|[Rr]md|[Rr]nw)$"
  files <- list.files(dirs, pattern = pattern, recursive = TRUE, full.names = TRUE)
  files[!grepl("node_modules", files, fixed = TRUE)]
}

# The names R/ defines at top level that the installed namespace lacks.
missing_from_installed <- function() {
  ns <- tryCatch(getNamespace("profile"), error = function(e) NULL)
  if (is.null(ns)) {
    return("(the package is not installed)")
  }
  defined <- unlist(lapply(list.files("R", "[.]R$", full.names = TRUE), function(file) {
    exprs <- parse(file, keep.source = FALSE)
    assigned <- vapply(exprs, function(e) {
      is_assignment <- is.call(e) && identical(e[[1]], as.name("<-")) && is.name(e[[2]])
      if (is_assignment) as.character(e[[2]]) else ""
    }, "")
    assigned[nzchar(assigned)]
  }))
  setdiff(defined, ls(ns, all.names = TRUE))
}

missing <- missing_from_installed()
if (length(missing)) {
  message(
    "The installed profile is not this tree's (it lacks ",
    paste(utils::head(missing, 5), collapse = ", "), "): lintr would report them as undefined.\n",
    "Install it first: R CMD INSTALL . (or with -l .rlib and R_LIBS=.rlib)"
  )
  quit(status = 2)
}

files <- if (length(args)) args else lintable()
lints <- parallel::mclapply(files, lintr::lint, mc.cores = 2L, mc.preschedule = FALSE)
failed <- vapply(lints, inherits, logical(1), "try-error")
if (any(failed)) {
  message("lintr failed on: ", paste(files[failed], collapse = ", "))
  quit(status = 2)
}
n <- sum(lengths(lints))
if (n) {
  for (l in lints[lengths(lints) > 0L]) print(l)
  message(
    "\nlintr: ", n, " lint", if (n > 1L) "s", " in ", sum(lengths(lints) > 0L), " of ",
    length(files), " files (settings: .lintr).\n",
    "Fix them: Rscript dev/style.R formats; lines stay within 100 characters;\n",
    "see one file's with Rscript -e 'lintr::lint(\"R/file.R\")'."
  )
  quit(status = 1)
}
message("lintr: ", length(files), " R files, no lints")
