# Writes inst/samples/proto/1.out.prof.pb.gz: inst/samples/rprof/1.out
# converted to pprof by CRAN profile 1.0.4, the reference for what the
# 1.0.x writer produced.
#
#   Rscript data-raw/install-profile-1.0.4.R   # once
#   Rscript data-raw/proto-samples.R
#
# profile 1.0.4 is loaded from its own library ($PROFILE_104_LIB, default
# /opt/profile-1.0.4), never from the library that holds the package being
# developed under the same name. Its write_pprof() needs RProtoBuf.

lib <- Sys.getenv("PROFILE_104_LIB", "/opt/profile-1.0.4")
input <- file.path("inst", "samples", "rprof", "1.out")
output <- file.path("inst", "samples", "proto", "1.out.prof.pb.gz")

if (!file.exists(input)) {
  stop("run this script from the package root, after data-raw/rprof-samples.R")
}
if (!file.exists(file.path(lib, "profile", "DESCRIPTION"))) {
  stop(
    "profile 1.0.4 is not installed in ", lib,
    "; run data-raw/install-profile-1.0.4.R first"
  )
}
if ("profile" %in% loadedNamespaces()) {
  stop("another version of 'profile' is already loaded")
}

old <- loadNamespace("profile", lib.loc = lib)
version <- getNamespaceVersion(old)
if (version != "1.0.4") stop("expected profile 1.0.4 in ", lib, ", found ", version)
if (!requireNamespace("RProtoBuf", quietly = TRUE)) {
  stop("RProtoBuf is needed (Debian: apt-get install r-cran-rprotobuf)")
}

# 1.0.4 cannot parse frame names that contain quotes, such as "x[["a"]]"
# in 1.out: it warns and leaves those frames out. The reference file keeps
# that behaviour; the warning is reported as a message.
ds <- withCallingHandlers(
  old$read_rprof(input),
  warning = function(w) {
    message("profile 1.0.4 warned: ", conditionMessage(w))
    invokeRestart("muffleWarning")
  }
)
dir.create(dirname(output), recursive = TRUE, showWarnings = FALSE)
staged <- paste0(output, ".tmp")
old$write_pprof(ds, staged)
invisible(file.rename(staged, output))

# Read it back with 1.0.4 as a first check.
back <- old$read_pprof(output)
message(sprintf(
  "%s: %d bytes, %d samples (sum of values %d), %d locations, %d functions",
  output, file.size(output), nrow(back$samples), sum(back$samples$value),
  nrow(back$locations), nrow(back$functions)
))
