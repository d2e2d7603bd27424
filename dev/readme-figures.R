# Redraws the figures of README.md from the sample profiles.
# Usage, from the package root after installing into .rlib:
#   R_LIBS=.rlib Rscript dev/readme-figures.R
library(profile)
dir.create("man/figures", showWarnings = FALSE, recursive = TRUE)
x <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
grDevices::png("man/figures/README-flamegraph.png", width = 1000, height = 500, res = 96)
profile_flamegraph(x)
grDevices::dev.off()
