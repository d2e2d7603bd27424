# Writes what tests/js/pv-data.test.mjs judges the view's data layer on, into
# the directory given: view.json, the JSON the viewer gets for a sample
# profile with line profiling (profile_view() embeds the same text), and
# summary.json, what profile_summary() computes from the same profile per
# sample type: the total, each function's self and total, each line's self
# and total. Run by the node test itself (Rscript tests/js/view-data.R DIR),
# with the package installed where R_LIBS points.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1L) stop("usage: Rscript tests/js/view-data.R OUTPUT_DIR")
out <- args[[1]]
suppressPackageStartupMessages(library(profile))

x <- read_rprof(system.file("samples", "rprof", "line.out", package = "profile", mustWork = TRUE))
json <- profile:::view_data(x, type = NULL, title = NULL)
writeLines(json, file.path(out, "view.json"), useBytes = TRUE)
# view-go.json: the same of a Go CPU profile (pv-refine-same.test.mjs)
sample <- function(...) system.file("samples", ..., package = "profile", mustWork = TRUE)
write_view <- function(p, name) {
  json <- profile:::view_data(p, type = NULL, title = NULL)
  writeLines(json, file.path(out, name), useBytes = TRUE)
}
write_view(read_pprof(sample("pprof", "cpu.pb.gz")), "view-go.json")
# view-diff.json: a diff (the base's values negative) of two Rprof recordings
write_view(profile_diff(x, read_rprof(sample("rprof", "all.out"))), "view-diff.json")
# view-nolines.json: an Rprof recording without line profiling (no line keys)
write_view(read_rprof(sample("rprof", "gc.out")), "view-nolines.json")

# the view's sample types (Rprof's samples, and time)
types <- jsonlite::fromJSON(json)$types$name
per_type <- lapply(types, function(type) {
  by_function <- as.data.frame(profile_summary(x, type = type, n = Inf, by = "function"))
  by_line <- as.data.frame(profile_summary(x, type = type, n = Inf, by = "line"))
  list(
    type = type,
    total = sum(by_function$self),
    functions = by_function[c("name", "self", "total")],
    lines = by_line[c("filename", "line", "self", "total")]
  )
})
jsonlite::write_json(per_type, file.path(out, "summary.json"), digits = NA, auto_unbox = TRUE)

# refined.json: per refinement (R verbs piped in order, as the view applies
# them), profile_summary() of the refined profile for the default type.
refinements <- list(
  list(list(verb = "focus", pattern = "^is\\.odd\\.num$")),
  list(list(verb = "ignore", pattern = "cmp")),
  list(list(verb = "hide", pattern = "^(tryCatch|tryCatchList|tryCatchOne|doTryCatch)$")),
  list(list(verb = "show", pattern = "^(time_round|h|cmp)$")),
  list(list(verb = "prune_from", pattern = "^cmpfun$")),
  # frames the view merges into one node (by function name) and the pattern
  # tells apart: approximate in the view, which says so; my.fun has frames
  # in rounds.R and in recursion.R, call_namespaced at lines 30 and 31
  list(list(verb = "ignore", pattern = "closures\\.R")),
  list(list(verb = "focus", pattern = "closures\\.R:30")),
  list(list(verb = "focus", pattern = "recursion\\.R")),
  list(list(verb = "focus", pattern = "(?i)^TIME_"), list(verb = "hide", pattern = "^h$"))
)
type <- types[[jsonlite::fromJSON(json)$default_type]]
refined <- lapply(refinements, function(steps) {
  y <- x
  for (s in steps) y <- suppressWarnings(get(paste0("profile_", s$verb))(y, s$pattern))
  by_function <- as.data.frame(profile_summary(y, type = type, n = Inf, by = "function"))
  list(steps = steps, type = type, functions = by_function[c("name", "self", "total")])
})
jsonlite::write_json(refined, file.path(out, "refined.json"), digits = NA, auto_unbox = TRUE)

# lanes.json: the view of two recordings combined (a lane each in the time
# order, pv-chart.js)
both <- combine_profiles(
  x, read_rprof(system.file("samples", "rprof", "memory.out", package = "profile", mustWork = TRUE))
)
lanes <- profile:::view_data(both, type = NULL, title = NULL)
writeLines(lanes, file.path(out, "lanes.json"), useBytes = TRUE)
