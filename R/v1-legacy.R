# Internal names of profile 1.0.x
#
# The 1.0.x test suite (and code that reached into the namespace) converts
# between v1 objects and an intermediate form of each file format:
# rprof_to_ds(ds_to_rprof(ds)) and msg_to_ds(ds_to_msg(ds)). These keep
# working for v1 objects, going through the package's writers and readers, so
# they parse and write exactly what files would hold.

# A v1 object from an Rprof file in the 1.0.x intermediate form (a list with
# `header`, `files` and `traces`, each a character vector of lines). The
# result's `.rprof` component is that list, as in 1.0.x.
rprof_to_ds <- function(rprof) {
  path <- tempfile("profile", fileext = ".out")
  on.exit(unlink(path), add = TRUE)
  writeLines(unlist(rprof, use.names = FALSE), path)
  ds <- read_rprof(path, version = "1.0")
  ds$.rprof <- rprof
  ds
}

# The 1.0.x intermediate form of the Rprof file that write_rprof() writes for
# `ds` (v1 or v2).
ds_to_rprof <- function(ds) {
  validate_profile(ds)
  path <- tempfile("profile", fileext = ".out")
  on.exit(unlink(path), add = TRUE)
  write_rprof(ds, path)
  rprof_lines_split(readLines(path))
}

# profile 1.0.x returned an RProtoBuf message here. This package does not use
# RProtoBuf: the "message" is the serialized pprof file as a raw vector
# (gzip-compressed), which msg_to_ds() reads back.
ds_to_msg <- function(ds) {
  validate_profile(ds)
  path <- tempfile("profile", fileext = ".pb.gz")
  on.exit(unlink(path), add = TRUE)
  write_pprof(ds, path)
  readBin(path, "raw", file.size(path))
}

# A v1 object from a pprof message: a raw vector holding a pprof file (gzip or
# plain protobuf), or an RProtoBuf message (as 1.0.x's ds_to_msg() returned),
# which is serialized first.
msg_to_ds <- function(msg) {
  if (isS4(msg) && is.function(tryCatch(msg$serialize, error = function(e) NULL))) {
    msg <- msg$serialize(NULL)
  }
  if (!is.raw(msg)) {
    abort_argument(
      "{.arg msg} must be a raw vector holding a pprof file, not {.obj_type_friendly {msg}}.",
      msg = msg
    )
  }
  path <- tempfile("profile", fileext = ".pb.gz")
  on.exit(unlink(path), add = TRUE)
  writeBin(msg, path)
  read_pprof(path, version = "1.0")
}
