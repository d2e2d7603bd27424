# Every package that the package's code, tests or vignettes call with `pkg::`
# (or `pkg:::`) or attach with library()/require() is declared in DESCRIPTION
# (Depends, Imports or Suggests): the uses that R CMD check looks for.
# (A package asked for by requireNamespace() alone, to leave something out
# when it is missing, need not be declared.) R CMD check --as-cran fails
# with a WARNING on an undeclared one in the tests ("'::' or ':::' imports
# not declared from"), which only a full check would otherwise show. Run from the package's root:
#   Rscript dev/declared-packages.R
files <- c(
  list.files("R", "[.]R$", full.names = TRUE),
  list.files("tests", "[.]R$", full.names = TRUE, recursive = TRUE),
  list.files("vignettes", "[.]Rmd$", full.names = TRUE)
)

description <- read.dcf("DESCRIPTION")
fields <- intersect(c("Depends", "Imports", "Suggests", "LinkingTo"), colnames(description))
declared <- unlist(lapply(fields, function(field) {
  entries <- strsplit(description[, field], ",")[[1]]
  trimws(sub("\\(.*", "", entries))
}))
base <- rownames(installed.packages(priority = "base"))
known <- c(declared, base, "profile", "R")

used_in <- function(file) {
  text <- readLines(file, warn = FALSE)
  # Comments and roxygen lines name packages without using them.
  text <- sub("#.*$", "", text)
  # Strings name packages too ("pprof::base" is a label key); code between
  # them does not, so string literals are emptied before looking for `::`.
  code <- gsub("\"([^\"\\\\]|\\\\.)*\"|'([^'\\\\]|\\\\.)*'", "\"\"", text)
  found <- with_pattern(code, "([A-Za-z][A-Za-z0-9.]*):::?[A-Za-z.`]")
  attached <- with_pattern(text, "\\b(?:library|require)\\(\\s*[\"']?([A-Za-z][A-Za-z0-9.]*)")
  unique(c(found, attached))
}

with_pattern <- function(text, pattern) {
  hits <- regmatches(text, gregexpr(pattern, text, perl = TRUE))
  sub(pattern, "\\1", unlist(hits), perl = TRUE)
}

problems <- character()
for (file in files) {
  missing <- setdiff(used_in(file), known)
  if (length(missing) > 0) {
    problems <- c(problems, sprintf("%s uses %s", file, paste(missing, collapse = ", ")))
  }
}
if (length(problems) > 0) {
  cat("declared packages: used but not in DESCRIPTION:\n", paste0("    ", problems, "\n"), sep = "")
  quit(status = 1)
}
cat(sprintf("declared packages: %d files use only packages DESCRIPTION declares\n", length(files)))
