# The R code's formatting: styler's tidyverse style (CRAN styler), the one tool
# and the settings the package's R code is formatted with.
#
#   Rscript dev/style.R           # format every R file in place
#   Rscript dev/style.R --check   # change nothing; fail, naming the files, if
#                                 # any would change (dev/test.sh runs this)
#
# R/extendr-wrappers.R is written by rextendr (dev/update-wrappers.R) and left
# as it writes it.
args <- commandArgs(trailingOnly = TRUE)
check <- "--check" %in% args

if (!requireNamespace("styler", quietly = TRUE)) {
  stop("dev/style.R needs the CRAN package styler: install.packages(\"styler\")")
}

style_dirs <- c("R", "tests", "dev", "bench", "data-raw", "vignettes")
files <- unlist(lapply(style_dirs, function(dir) {
  list.files(dir, pattern = "\\.(R|Rmd)$", recursive = TRUE, full.names = TRUE)
}))
files <- setdiff(files, "R/extendr-wrappers.R")
files <- files[!grepl("node_modules", files, fixed = TRUE)]

# Two processes, each styling half of the files (styler works file by file).
# styler's cache (on by default, in ~/.cache/R/R.cache/styler) skips the
# files it has already seen formatted, so a second check takes seconds.
style <- function(dry) {
  halves <- split(files, seq_along(files) %% 2L)
  results <- parallel::mclapply(halves, function(part) {
    result <- NULL
    utils::capture.output(
      result <- styler::style_file(part, style = styler::tidyverse_style, strict = TRUE, dry = dry)
    )
    result
  }, mc.cores = 2L)
  failed <- vapply(results, inherits, logical(1), "try-error")
  if (any(failed)) {
    stop("styler failed: ", conditionMessage(attr(results[[which(failed)[1]]], "condition")))
  }
  do.call(rbind, results)
}

if (check) {
  result <- style("on")
  changed <- result$file[result$changed]
  if (length(changed)) {
    message(
      "These R files are not formatted as styler formats them:\n  ",
      paste(changed, collapse = "\n  "),
      "\nRun: Rscript dev/style.R"
    )
    quit(status = 1)
  }
  message("styler: ", length(files), " R files formatted")
} else {
  result <- style("off")
  changed <- result$file[result$changed]
  message(
    "styler: ", length(files), " R files, ", length(changed), " reformatted",
    if (length(changed)) ":\n  ", paste(changed, collapse = "\n  ")
  )
}
