# Reading the real OTLP files of other producers (../shared/otlp), for the
# before/after of a change to the OTLP reader (bench/README.md, "Reading real
# OTLP files"). One process reads one file `reps` times; farm-bench times the
# process and takes its peak memory, with the package of R_LIBS after and
# before the change in turn:
#
#   farm-bench -n 5 --timeout 900 -- env R_LIBS=AFTER Rscript bench/otlp-real-files.R FILE 20 \
#     --vs "env R_LIBS=BEFORE Rscript bench/otlp-real-files.R FILE 20"
#
# A gzip-compressed copy of a file (gzip -k) takes the path where the reader
# counts what decoding takes as the data are inflated.
args <- commandArgs(trailingOnly = TRUE)
path <- args[[1]]
reps <- as.integer(args[[2]])
suppressPackageStartupMessages(library(profile))
for (i in seq_len(reps)) x <- read_otlp(path)
cat(nrow(dm::dm_get_tables(x)$samples), "samples\n")
