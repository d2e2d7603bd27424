# Benchmark of read_pprof() and write_pprof() against CRAN profile 1.0.4, on a
# large real Go CPU profile. From the package root:
#
#   sh data-raw/go-samples.sh bench/data -profiles cpu -cpu-seconds 45
#   R CMD INSTALL -l .rlib . && R_LIBS=.rlib Rscript bench/pprof.R [FILE]
#
# profile 1.0.4 runs in a separate R process from its own library
# (PROFILE_104_LIB, default ~/.cache/profile-1.0.4), since it has the same name.

args <- commandArgs(trailingOnly = TRUE)
path <- normalizePath(if (length(args)) args[[1]] else "bench/data/cpu.pb.gz", mustWork = TRUE)
lib104 <- Sys.getenv("PROFILE_104_LIB", path.expand("~/.cache/profile-1.0.4"))
reps104 <- 3L

suppressPackageStartupMessages(library(profile))
x <- read_pprof(path)
# v1 holds only sample counts: a heap profile has none, so its v1 rows are NA
v1 <- tryCatch(read_pprof(path, version = "1.0"), profile_error = function(e) NULL)
tables <- dm::dm_get_tables(x)
cat(sprintf(
  "%s: %s bytes, %d Sample messages holding %d CPU samples (%d frames)\n",
  basename(path), format(file.size(path), big.mark = ","), nrow(tables$samples),
  as.integer(sum(tables$sample_values$value[tables$sample_values$type == "samples"])),
  nrow(tables$sample_locations)
))

# Wall-clock and CPU (user + system) time of each run, in ms; the medians are
# reported. Wall time includes waiting for the disk (the writer syncs the file
# before renaming it into place), which varies with the machine's load.
timed <- function(expr, n) {
  expr <- substitute(expr)
  env <- parent.frame()
  t <- vapply(seq_len(n), function(i) {
    st <- system.time(eval(expr, env), gcFirst = FALSE)
    c(wall = st[["elapsed"]], cpu = st[["user.self"]] + st[["sys.self"]])
  }, numeric(2))
  apply(t, 1, median) * 1000
}

out <- tempfile(fileext = ".pb.gz")
ours <- rbind(
  # the floor: reading the bytes and inflating them, nothing parsed
  floor = timed(memDecompress(readBin(path, "raw", file.size(path)), "gzip"), 30),
  read = timed(read_pprof(path), 30),
  read_v1 = if (is.null(v1)) c(wall = NA, cpu = NA) else timed(read_pprof(path, version = "1.0"), 15),
  write = timed(write_pprof(x, out), 30),
  write_v1 = if (is.null(v1)) c(wall = NA, cpu = NA) else timed(write_pprof(v1, out), 15)
)

child <- tempfile(fileext = ".R")
writeLines(c(
  "args <- commandArgs(trailingOnly = TRUE)",
  "suppressPackageStartupMessages(library(profile, lib.loc = args[[2]]))",
  "stopifnot(as.character(packageVersion('profile')) == '1.0.4')",
  "n <- as.integer(args[[3]])",
  "out <- tempfile(fileext = '.pb.gz')",
  "run <- function(f) { st <- system.time(f(), gcFirst = FALSE); c(st[['elapsed']], st[['user.self']] + st[['sys.self']]) }",
  "ok <- tryCatch({ ds <- read_pprof(args[[1]]); TRUE }, error = function(e) FALSE)",
  "if (!ok) { cat('NA NA NA NA\\n'); quit() }",
  "read <- replicate(n, run(function() ds <<- read_pprof(args[[1]])))",
  "write <- replicate(n, run(function() write_pprof(ds, out)))",
  "cat(apply(read, 1, median) * 1000, apply(write, 1, median) * 1000, '\\n')"
), child)
res <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", child, shQuote(path), shQuote(lib104), reps104), stdout = TRUE)
theirs <- matrix(as.numeric(strsplit(trimws(tail(res, 1)), " ")[[1]]), ncol = 2, byrow = TRUE)
theirs <- theirs[c(1, 1, 1, 2, 2), ]

result <- data.frame(
  task = c("readBin + memDecompress (floor)", "read (v2)", "read (version = \"1.0\")", "write (v2)", "write (v1 object)"),
  wall_ms = round(ours[, "wall"], 1),
  wall_ms_1.0.4 = round(theirs[, 1]),
  speedup_wall = round(theirs[, 1] / ours[, "wall"]),
  cpu_ms = round(ours[, "cpu"], 1),
  cpu_ms_1.0.4 = round(theirs[, 2]),
  speedup_cpu = round(theirs[, 2] / ours[, "cpu"])
)
print(result, row.names = FALSE, right = FALSE)
