# Shared by the tests of the verbs (test-verbs.R, test-verbs-frames.R).

pprof_files <- function() {
  list.files(sample_path("pprof"), pattern = "\\.pb\\.gz$", full.names = TRUE)
}

write_pprof_tmp <- function(x) {
  path <- withr::local_tempfile(fileext = ".pb.gz", .local_envir = parent.frame())
  write_pprof(x, path)
  path
}

verbs <- list(
  focus = profile_focus, ignore = profile_ignore, hide = profile_hide, show = profile_show
)

# Each verb of `with` (named by their flags) with each pattern on `x`, written
# to pprof, against go tool pprof with the verb's flag on `original` (a pprof
# file of `x`), for the sample types `types` (see expect_go_agrees()).
expect_verbs_agree_with_go <- function(x, original, patterns, label, types = "last", with = verbs) {
  for (pattern in patterns) {
    for (verb in names(with)) {
      ours <- write_pprof_tmp(quietly_matching(with[[verb]](x, pattern)))
      flag <- paste0("-", verb, "=", pattern)
      expect_go_agrees(original, ours, flag, label = paste(label, flag), types = types)
    }
  }
}

# `expr` without the warnings of patterns that match nothing.
quietly_matching <- function(expr) {
  withCallingHandlers(expr, profile_warning_no_match = function(w) invokeRestart("muffleWarning"))
}

# One row per frame: sample, depth, location and the location's function name.
frames_with_names <- function(x) {
  t <- dm::dm_get_tables(x)
  sl <- as.data.frame(lapply(t$sample_locations, function(v) v[seq_along(v)]))
  fn <- t$functions$name[match(t$locations$function_id, t$functions$function_id)]
  sl$name <- fn[match(sl$location_id, t$locations$location_id)]
  sl[order(sl$sample_id, sl$depth), ]
}
