# The main job on a sample profile: read it, summarise it, write pprof, and show
# what `go tool pprof -top` makes of the written file.
library(profile)
path <- system.file("samples/rprof/1.out", package = "profile")
x <- read_rprof(path)
tables <- dm::dm_get_tables(x)
cat(
  "Read", path, "\nsamples:", nrow(tables$samples), " frames:", nrow(tables$sample_locations),
  " functions:", nrow(tables$functions), "\n\n"
)
print(profile_summary(x, n = 8))
out <- file.path(tempdir(), "profile-demo.pb.gz")
write_pprof(x, out)
cat("wrote", out, "\n\n")
go <- Sys.which("go")
if (nzchar(go)) {
  system2(go, c("tool", "pprof", "-top", out))
} else {
  cat("(go is not installed: skipping `go tool pprof -top`)\n")
}
