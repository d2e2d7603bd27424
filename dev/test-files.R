# The tests mirror the code: the table "R files and their tests" of
# dev/ARCHITECTURE.md names, for every file of R/, its test files, and this
# script checks the table against R/ and tests/testthat/.
#
#   Rscript dev/test-files.R
#
# Run it from the package root (dev/house-rules.sh does). The rules:
#
# - every R file has one row, and every row an R file;
# - a row names the file's own test-<file>.R, or a cross-cutting suite that
#   covers it (test-oracle-*, test-hostile-*, test-compat-*, test-compose-*: named for what
#   they judge), or says "none" for a file that defines no function (a help
#   page) or that rextendr writes (R/extendr-wrappers.R);
# - every test file named in the table exists, and every test file is named
#   in it;
# - a test file that is not cross-cutting is named for the R file it tests,
#   test-<file>.R or test-<file>-<aspect>.R (the longest R file name that
#   fits), and named in that file's row only.
if (!dir.exists("R") || !file.exists("dev/ARCHITECTURE.md")) {
  stop("run dev/test-files.R from the package root")
}

cross_cutting <- "^test-(oracle|hostile|compat|compose)-"
generated <- "extendr-wrappers.R"

# The rows of the table under the heading "R files and their tests": the R
# file of each (first cell) and its last cell.
table_rows <- function(lines) {
  start <- grep("^#+ R files and their tests", lines)
  if (length(start) != 1L) {
    stop("dev/ARCHITECTURE.md has no one heading \"R files and their tests\"")
  }
  after <- lines[-seq_len(start)]
  end <- grep("^#", after)
  section <- if (length(end)) after[seq_len(end[[1L]] - 1L)] else after
  rows <- grep("^\\| `[^`]+\\.R` \\|", section, value = TRUE)
  cells <- strsplit(rows, "|", fixed = TRUE)
  data.frame(
    file = sub("^\\| `([^`]+)`.*$", "\\1", rows),
    tests = vapply(cells, function(c) trimws(c[[length(c)]]), ""),
    stringsAsFactors = FALSE
  )
}

# Whether an R file defines a function at its top level.
defines_functions <- function(path) {
  any(vapply(parse(path, keep.source = FALSE), function(e) {
    is.call(e) && length(e) == 3L && is.call(e[[3L]]) &&
      identical(e[[3L]][[1L]], as.name("function"))
  }, logical(1)))
}

# The R file a test file is named for: the longest file name `n` with the
# test's stem `n` or `n-<aspect>`; NA for none.
owner_of <- function(test, r_files) {
  stem <- sub("^test-(.*)\\.R$", "\\1", test)
  names <- sub("\\.R$", "", r_files)
  fits <- names[stem == names | startsWith(stem, paste0(names, "-"))]
  if (length(fits)) paste0(fits[which.max(nchar(fits))], ".R") else NA_character_
}

r_files <- sort(basename(list.files("R", "[.]R$")))
test_files <- sort(basename(list.files("tests/testthat", "^test-.*[.]R$")))
rows <- table_rows(readLines("dev/ARCHITECTURE.md", warn = FALSE))
listed <- lapply(rows$tests, function(cell) {
  unique(regmatches(cell, gregexpr("test-[A-Za-z0-9_.-]+\\.R", cell))[[1L]])
})
names(listed) <- rows$file

# The problems of the row of R file `f`: its cell of tests `cell`, the test
# files named there `tests`.
row_problems <- function(f, cell, tests) {
  own <- paste0("test-", sub("\\.R$", "", f), ".R")
  path <- file.path("R", f)
  out <- sprintf("the row of %s names %s, which does not exist", f, setdiff(tests, test_files))
  if (grepl("^none\\b", cell)) {
    if (f != generated && file.exists(path) && defines_functions(path)) {
      out <- c(out, sprintf(
        "R/%s defines functions: it needs %s or a cross-cutting suite, not \"none\"", f, own
      ))
    }
  } else if (!own %in% tests && !any(grepl(cross_cutting, tests))) {
    out <- c(out, sprintf(
      "R/%s has neither %s nor a cross-cutting suite (test-oracle-*, ...) in its row", f, own
    ))
  }
  out
}

# The problems of test file `t` (not a cross-cutting suite): the R file it is
# named for, and the rows that name it.
test_file_problems <- function(t) {
  owner <- owner_of(t, r_files)
  if (is.na(owner)) {
    return(sprintf(
      "%s is named for no R file: name it test-<file>.R or test-<file>-<aspect>.R, or %s",
      t, "test-oracle-*, test-hostile-*, test-compat-*, test-compose-* for what it judges"
    ))
  }
  rows_naming <- rows$file[vapply(listed, function(x) t %in% x, logical(1))]
  c(
    sprintf("%s tests R/%s, but the row of %s names it", t, owner, setdiff(rows_naming, owner)),
    if (length(rows_naming) && !owner %in% rows_naming) {
      sprintf("%s is not in the row of %s", t, owner)
    }
  )
}

problems <- c(
  sprintf("R/%s has no row", setdiff(r_files, rows$file)),
  sprintf("the row of %s names no file of R/", setdiff(rows$file, r_files)),
  sprintf("R/%s has more than one row", unique(rows$file[duplicated(rows$file)])),
  unlist(Map(row_problems, rows$file, rows$tests, listed), use.names = FALSE),
  sprintf("%s is in no row", setdiff(test_files, unlist(listed, use.names = FALSE))),
  unlist(lapply(test_files[!grepl(cross_cutting, test_files)], test_file_problems))
)

if (length(problems)) {
  message(paste0("test files: ", problems, collapse = "\n"))
  message(
    "test files: ", length(problems), " problem(s): rename the test files or correct the table ",
    "\"R files and their tests\" in dev/ARCHITECTURE.md"
  )
  quit(status = 1L)
}
own <- sum(paste0("test-", sub("\\.R$", "", rows$file), ".R") %in% test_files)
cat(sprintf(
  "test files: %d R files (%d with their own test-<file>.R), %d test files, all in the table\n",
  length(r_files), own, length(test_files)
))
