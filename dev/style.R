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

style <- function(dry) {
  styler::style_file(
    files,
    style = styler::tidyverse_style,
    strict = TRUE,
    dry = dry
  )
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
  invisible(style("off"))
}
