# Records inst/samples/rprofmem/alloc.out.gz (gzip-compressed) with R's allocation profiler,
# utils::Rprofmem(), in a fresh `Rscript --vanilla` process (run from the
# package root: `Rscript data-raw/rprofmem-samples.R`). The file holds two runs
# appended to one file, as `Rprofmem(append = TRUE)` writes them: every
# allocation (threshold 0) of a vector grown in a loop and of lapply() over
# paste0(); then the allocations above 10 000 bytes of a matrix and of a data
# frame built row by row.

if (!identical(commandArgs(TRUE), "--record")) {
  out <- file.path("inst", "samples", "rprofmem", "alloc.out.gz")
  dir.create(dirname(out), recursive = TRUE, showWarnings = FALSE)
  tmp <- paste0(out, ".tmp")
  status <- system2(
    file.path(R.home("bin"), "Rscript"),
    c("--vanilla", "data-raw/rprofmem-samples.R", "--record"),
    env = paste0("PROFILE_RPROFMEM_OUT=", tmp)
  )
  stopifnot(status == 0L, file.exists(tmp))
  gz <- gzfile(paste0(tmp, ".gz"), "wb")
  writeLines(readLines(tmp), gz)
  close(gz)
  unlink(tmp)
  file.rename(paste0(tmp, ".gz"), out)
  quit(save = "no")
}

path <- Sys.getenv("PROFILE_RPROFMEM_OUT")
grow <- function(n) {
  x <- c()
  for (i in seq_len(n)) x <- c(x, i)
  x
}
labels <- function(n) lapply(seq_len(n), function(i) paste0("item", i))
rows <- function(n) {
  df <- data.frame(a = 0, b = "start")
  for (i in seq_len(n)) df <- rbind(df, data.frame(a = i, b = "row"))
  df
}

utils::Rprofmem(path, threshold = 0)
x <- grow(300)
y <- labels(100)
utils::Rprofmem(NULL)

utils::Rprofmem(path, append = TRUE, threshold = 10000)
m <- matrix(runif(1e5), ncol = 100)
d <- rows(40)
utils::Rprofmem(NULL)
