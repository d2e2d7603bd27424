# A real v1 object: the v1 reading of an Rprof file (with its `.rprof`
# component and the dotted `.file_id` column of `functions`, as 1.0.x has them).
real_v1 <- function(file = "1.out") {
  path <- sample_path("rprof", file)
  if (exists("read_rprof", asNamespace("profile"))) {
    read_rprof(path, version = "1.0")
  } else {
    # TEMPORARY until the Rprof reader lands on main
    skip_if_no_profile104()
    suppressWarnings(profile104_read(path))
  }
}
