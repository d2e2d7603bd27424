# Allocation profiles in the composition suite (see helper-compose.R): R's
# allocation profiler, Rprofmem(), as a source (a real file and recordings
# with profile_record(allocations = TRUE)), and write_rprofmem() followed by
# read_rprofmem() as a step.
#
# What the other writers do with allocations: write_pprof() and write_otlp()
# keep both types (judged by the usual totals and summaries); write_folded()
# writes one type, which may be alloc_space or alloc_objects; write_rprof()
# writes a tick per sample without a `samples` count (an Rprof line is a tick,
# an allocation's bytes have no field in it), so of an allocation profile it
# keeps no value to compare, as of Go's heap profiles: step_write_read()
# compares only the `samples` counts, and only when every sample has one.

compose_alloc_sources <- function() {
  list(
    call("read_rprofmem", call(
      "system.file", "samples", "rprofmem", "alloc.out.gz",
      package = "profile"
    )),
    # every allocation of a list of vectors and of strings pasted together
    quote(profile_record(
      {
        v <- lapply(seq_len(200), function(i) numeric(100 * i))
        w <- vapply(seq_len(2000), function(i) nchar(paste0("item", i)), 0L)
        length(v) + sum(w)
      },
      interval = 0.005,
      allocations = TRUE
    )),
    # the vectors above a threshold of a matrix built column by column
    quote(profile_record(
      {
        m <- NULL
        for (i in seq_len(60)) m <- cbind(m, stats::runif(2000))
        dim(m)
      },
      interval = 0.005,
      threshold = 10000
    ))
  )
}

compose_has_allocations <- function(x) {
  types <- dm::dm_get_tables(compose_local(x), keyed = FALSE)$sample_values$type
  any(c("alloc_space", "alloc_objects") %in% types)
}

# A writer's refusal of a profile without allocations: expected.
compose_alloc_refusal <- function(step, err) {
  identical(step$kind, "write_rprofmem") && inherits(err, "profile_error_invalid") &&
    grepl("has no allocation samples", conditionMessage(err), fixed = TRUE)
}

# write_rprofmem() then read_rprofmem(): an Rprofmem line holds the bytes of
# one allocation and the names of its frames (no file, no line), so what comes
# back are the totals of alloc_space and alloc_objects (of their samples;
# values must be whole numbers) and the summaries by function.
step_rprofmem <- function(x) {
  code <- c(
    "path <- tempfile(fileext = \".out\")", "write_rprofmem(x, path)",
    "x <- read_rprofmem(path)"
  )
  list(
    kind = "write_rprofmem", code = code, write = TRUE,
    check = function(before, after, y, env) {
      t <- compose_totals(before, whole = TRUE)
      t <- t[names(t) %in% c("alloc_space/bytes", "alloc_objects/count")]
      # (source types of a v1 object: the names of its frames are its system
      # names, as in step_write_read())
      bys <- "function"
      if ("v1" %in% dm::dm_get_tables(before)$sources$source_type) bys <- character()
      what <- "write_rprofmem() then read_rprofmem()"
      c(
        check_totals(after, t, what, only = TRUE),
        check_summaries(after, compose_types(t), function(type, by) {
          compose_summary(before, type, by)
        }, what, bys)
      )
    }
  )
}
