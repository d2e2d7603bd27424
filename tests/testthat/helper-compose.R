# The composition suite (test-compose-pipelines.R): pipelines drawn at random
# from the package's own functions, as a user chains them, with invariants
# checked after every step. A pipeline is a list of steps; a step is R code
# (calls on the variables `x`, the profile so far, and `con`, a SQLite
# database) with the check that judges it. A failing pipeline is printed as
# the R code that reproduces it.
#
# The number of pipelines and their seed: PROFILE_COMPOSE_PIPELINES (300
# locally; dev/test.sh sets 1000 in CI) and PROFILE_COMPOSE_SEED (1 locally;
# in CI the commit's, as the Go oracle's seed).

compose_pipeline_count <- function() {
  as.integer(Sys.getenv("PROFILE_COMPOSE_PIPELINES", "300"))
}

compose_seed <- function() {
  as.integer(Sys.getenv("PROFILE_COMPOSE_SEED", "1"))
}

# ---- sources ------------------------------------------------------------------

# The code of each source a pipeline may start from or combine with: every
# reader on the package's sample files and on the real OTLP files of other
# producers (shared/otlp, when beside the source tree), three recordings, and
# the allocation profiles of helper-compose-alloc.R.
compose_sources <- function() {
  sample <- function(reader, dir, file) {
    call(reader, call("system.file", "samples", dir, file, package = "profile"))
  }
  rprof <- c(
    "1.out", "all.out", "append.out", "cut-lines.out.gz", "gc.out", "line.out",
    "memory.out", "toplevel.out"
  )
  pprof <- c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz", "mutex.pb.gz", "block.pb.gz")
  out <- c(
    lapply(rprof, function(f) sample("read_rprof", "rprof", f)),
    lapply(pprof, function(f) sample("read_pprof", "pprof", f)),
    list(
      sample("read_pprof", "pprof-second-run", "heap.pb.gz"),
      sample("read_pprof", "pprof-unicode", "unicode.pb.gz"),
      sample("read_otlp", "otlp", "otep-0239.pb"),
      sample("read_otlp", "otlp", "otep-0239.json"),
      # v1 objects, as profile 1.0.x read them
      as.call(c(as.list(sample("read_rprof", "rprof", "line.out")), version = "1.0")),
      as.call(c(as.list(sample("read_pprof", "pprof", "cpu.pb.gz")), version = "1.0"))
    ),
    compose_shared_sources(),
    compose_recordings(),
    compose_alloc_sources()
  )
  vapply(out, function(e) paste(deparse(e, width.cutoff = 500L), collapse = "\n"), "")
}

compose_shared_sources <- function() {
  dir <- otlp_shared_dir()
  if (is.null(dir)) {
    return(list())
  }
  otlp <- c(
    "async-profiler-generated/burn.otlp.pb",
    "async-profiler-generated/burn.otlp.derived.json",
    "otel-collector-contrib/golden-profiles-roundtrip-expected.derived.pb",
    "pyroscope/otel-ebpf-profile.pb.bin",
    "pyroscope/otel-ebpf-profile.pb.json"
  )
  c(
    lapply(file.path(dir, otlp), function(f) call("read_otlp", f)),
    list(
      call("read_pprof", file.path(dir, "async-profiler-generated/burn.pprof.pb")),
      call("read_folded", file.path(dir, "async-profiler-generated/burn.collapsed"))
    )
  )
}

# Two recordings of different code (each names its code `<expr:HASH>`, HASH
# of its text), and one of parallel code (not on Windows: forks): two forked
# workers through profile_task() while the main process waits, so a source
# per process and the tables `tasks` and `waits` (R/workers.R).
compose_recordings <- function() {
  parallel <- if (.Platform$OS.type != "windows") {
    list(quote(profile_record(
      {
        burn <- function(n) {
          v <- 0
          for (i in seq_len(n)) v <- v + sqrt(i)
          v
        }
        r <- parallel::mclapply(c(2e5, 3e5), profile_task(burn), mc.cores = 2)
        burn(1e5)
      },
      interval = 0.005
    )))
  }
  c(parallel, list(
    quote(profile_record(
      {
        v <- 0
        for (i in seq_len(4e5)) v <- v + sqrt(i)
        v
      },
      interval = 0.005
    )),
    quote(profile_record(
      vapply(seq_len(300), function(i) sum(sort(stats::runif(2000))), 0),
      interval = 0.005
    ))
  ))
}

# Sources are evaluated once per run (reading is judged elsewhere; a
# recording takes time): the value is cached by the code's text.
compose_cache <- new.env(parent = emptyenv())

compose_source_value <- function(code) {
  if (is.null(compose_cache[[code]])) {
    value <- compose_quietly(eval(parse(text = code)[[1]], new.env(parent = globalenv())))
    assign(code, value, envir = compose_cache)
  }
  compose_cache[[code]]
}

compose_quietly <- function(expr) {
  withCallingHandlers(expr, warning = function(w) invokeRestart("muffleWarning"))
}

# ---- what the checks compare --------------------------------------------------

compose_local <- function(x) {
  if (inherits(x, "profile_data")) {
    return(profile_v2_from_v1(x))
  }
  if (profile:::is_db_profile(x)) dplyr::collect(x) else x
}

# The sample types of a profile as "type/unit" with their totals over the
# samples of `samples` (gauges too: their sum is conserved by every step that
# keeps samples).
# (`framed`: of the samples with frames only; `whole`: of the types whose
# values are all whole numbers only; `sources`: of the samples of these
# sources only.)
compose_totals <- function(x, framed = FALSE, whole = FALSE, sources = NULL) {
  tables <- dm::dm_get_tables(compose_local(x), keyed = FALSE)
  v <- tables$sample_values
  samples <- tables$samples
  if (!is.null(sources)) samples <- samples[samples$source_id %in% sources, , drop = FALSE]
  counted <- samples$sample_id
  if (framed) counted <- intersect(counted, tables$sample_locations$sample_id)
  v <- v[v$sample_id %in% counted, , drop = FALSE]
  if (whole) {
    fractional <- unique(v$type[v$value != round(v$value)])
    v <- v[!v$type %in% fractional, , drop = FALSE]
  }
  if (!nrow(v)) {
    return(stats::setNames(numeric(), character()))
  }
  sums <- tapply(v$value, paste0(v$type, "/", v$unit), sum)
  sums[order(names(sums))]
}

compose_gauges <- c("small_vector_heap", "large_vector_heap", "node_heap")

# The summable sample types of a profile (type names of totals' names).
compose_types <- function(totals) {
  types <- sub("/[^/]*$", "", names(totals))
  setdiff(types[!types %in% types[duplicated(types)]], compose_gauges)
}

# A summary as a plain data frame keyed by its identity columns (all rows).
compose_summary <- function(x, type, by) {
  s <- profile_summary(x, type = type, by = by, n = Inf)
  keys <- switch(by,
    `function` = "name",
    line = c("filename", "line")
  )
  out <- data.frame(
    key = do.call(paste, c(unclass(s)[keys], sep = ":")),
    self = s$self, total = s$total
  )
  out[order(out$key, method = "radix"), , drop = FALSE]
}

# Summaries of data frames of compose_summary() added up by key.
compose_add_summaries <- function(a, b, sign = 1) {
  keys <- sort(union(a$key, b$key), method = "radix")
  value <- function(d, col) {
    v <- d[[col]][match(keys, d$key)]
    ifelse(is.na(v), 0, v)
  }
  out <- data.frame(
    key = keys,
    self = value(a, "self") + sign * value(b, "self"),
    total = value(a, "total") + sign * value(b, "total")
  )
  out[out$self != 0 | out$total != 0, , drop = FALSE]
}

# The difference between two summaries (or "" when equal).
compose_summary_difference <- function(got, expected) {
  rownames(got) <- rownames(expected) <- NULL
  eq <- all.equal(got, expected, tolerance = 1e-9, check.attributes = FALSE)
  if (isTRUE(eq)) "" else paste(eq, collapse = "; ")
}

# The source panel's data of profile_view(): per sample type the self and
# total of each (file, line), and the text of each file.
compose_view_lines <- function(x) {
  json <- profile:::view_data(compose_local(x), NULL, "compose")
  payload <- jsonlite::fromJSON(json, simplifyVector = FALSE)
  files <- vapply(payload$files, `[[`, "", "name")
  types <- vapply(payload$types, `[[`, "", "name")
  lines <- lapply(seq_along(types), function(t) {
    v <- lapply(payload$lines$values[[t]], decode_typed)
    out <- data.frame(
      key = paste(
        files[decode_typed(payload$lines$file) + 1],
        decode_typed(payload$lines$line),
        sep = ":"
      ),
      self = v$self_pos + v$self_neg,
      total = v$total_pos + v$total_neg
    )
    out <- out[out$self != 0 | out$total != 0, , drop = FALSE]
    out[order(out$key, method = "radix"), , drop = FALSE]
  })
  names(lines) <- types
  text <- lapply(payload$files, function(f) if (is.null(f$text)) NULL else unlist(f$text))
  names(text) <- files
  list(lines = lines, text = text)
}

# ---- pipelines ----------------------------------------------------------------

compose_kinds <- c(
  "combine", "diff", "profile_focus", "profile_ignore", "profile_hide", "profile_show",
  "profile_show_from", "profile_prune_from", "select_types", "scale", "aggregate", "window",
  "filter_labels", "db_append", "db_append_delete", "db_delete", "db_reopen", "db_collect",
  "pprof", "otlp", "otlp_json", "rprof", "folded", "speedscope", "rprofmem"
)

# A step drawn for profile `x` (NULL when the kind drawn does not apply).
compose_draw_step <- function(x, sources) {
  in_db <- profile:::is_db_profile(x)
  kinds <- compose_kinds
  db_only <- kinds[startsWith(kinds, "db_") & kinds != "db_append"]
  kinds <- setdiff(kinds, if (in_db) "db_append" else db_only)
  # (the database's own steps, and appending, drawn more often than one in
  # twenty: they need a database first)
  weight <- ifelse(kinds %in% c(db_only, "db_append"), 3, 1)
  # (and write_rprofmem() of a profile that holds allocations: of others it
  # is refused)
  weight[kinds == "rprofmem" & compose_has_allocations(x)] <- 4
  kind <- sample(kinds, 1L, prob = weight)
  source <- sample(sources, 1L)
  switch(kind,
    combine = step_combine(x, source),
    diff = step_diff(x, source),
    profile_focus = ,
    profile_ignore = step_sample_filter(x, kind),
    profile_hide = ,
    profile_show = ,
    profile_show_from = ,
    profile_prune_from = step_frame_filter(x, kind),
    select_types = step_select_types(x),
    scale = step_scale(x),
    aggregate = step_aggregate(x),
    window = step_window(x),
    db_append = step_db_append(x),
    db_append_delete = step_db_append_delete(x, source),
    db_delete = step_db_delete_first(x),
    db_reopen = step_db_reopen(x),
    db_collect = step_db_collect(x),
    filter_labels = step_filter_labels(x),
    speedscope = step_speedscope(x),
    rprofmem = step_rprofmem(x),
    step_write_read(x, kind)
  )
}

# Summaries computed in the database equal those of the collected profile.
check_db_summaries <- function(x) {
  local <- dplyr::collect(x)
  types <- compose_types(compose_totals(local))
  check_summaries(
    x, types, function(type, by) compose_summary(local, type, by),
    "profile_summary() in the database against that of the collected profile"
  )
}

compose_eval_lines <- function(lines, env) {
  compose_quietly(for (line in lines) eval(parse(text = line)[[1]], env))
}

# A writer's refusal of what its format cannot hold (Rprof lines are whole
# ticks: no negative or fractional counts), and a refusal the documentation
# states, end nothing: the pipeline goes on
# without the step (so does write_rprofmem()'s of a profile without
# allocations, compose_alloc_refusal()).
compose_refusal <- function(step, err) {
  # (a difference is refused by a database of runs, as documented)
  (step$kind == "db_append" && inherits(err, "profile_error_argument") &&
    grepl("difference of profiles", conditionMessage(err), fixed = TRUE)) ||
    inherits(err, "profile_error_unsupported") ||
    (isTRUE(step$write) && inherits(err, "profile_error_invalid") &&
      grepl("must be a whole\\s+number", conditionMessage(err)))
}

compose_is_known <- function(p) !is.null(p$known)

# Runs pipeline `i` of the seed: its code, and the problems found (those of
# defects owned by other parts of issue 32 are marked `known` and do not stop
# the pipeline; the first other problem does).
compose_run_pipeline <- function(i, sources, seed, steps = 5L) {
  set.seed((seed * 100003 + i) %% .Machine$integer.max)
  env <- new.env(parent = globalenv())
  source <- sample(sources, 1L)
  env$x <- compose_source_value(source)
  env$code <- paste("x <-", source)
  problems <- check_valid(env$x, "the source")
  for (s in seq_len(sample.int(steps, 1L))) {
    if (!all(vapply(problems, compose_is_known, TRUE))) break
    # a profile known to be invalid is composed no further: every later step
    # would fail on the same known defect and show nothing new
    if (any(vapply(problems, function(p) isTRUE(p$invalid), TRUE))) break
    problems <- c(problems, compose_run_step(env, sources))
  }
  if (!is.null(env$con)) DBI::dbDisconnect(env$con)
  list(code = env$code, problems = problems)
}

# One step drawn and run on `env$x`, its code added to `env$code`: the
# problems it shows.
compose_run_step <- function(env, sources) {
  # (a database's profile is lazy: what a step appends shows in it)
  current <- env$x
  before <- compose_local(current)
  step <- compose_draw_step(current, sources)
  if (is.null(step)) {
    return(list())
  }
  if (!is.null(step$source)) {
    env$y <- compose_source_value(step$source)
    env$code <- c(env$code, paste("y <-", step$source))
  }
  env$code <- c(env$code, step$code)
  err <- tryCatch(
    {
      compose_eval_lines(step$code, env)
      NULL
    },
    error = function(e) e
  )
  if (!is.null(err) && (compose_refusal(step, err) || compose_alloc_refusal(step, err))) {
    env$code <- c(env$code, paste("# refused:", class(err)[[1]]))
    env$x <- current
    return(list())
  }
  if (!is.null(err)) {
    return(list(compose_problem(
      paste0(step$kind, ": an error (", class(err)[[1]], "): ", conditionMessage(err)),
      known = compose_known_invalid(conditionMessage(err), step$kind)
    )))
  }
  problems <- c(
    check_valid(env$x, step$kind),
    tryCatch(step$check(before, env$x, env$y, env), error = function(e) {
      message <- conditionMessage(e)
      list(compose_problem(
        paste0(step$kind, ": the check fails: ", message),
        known = compose_known_invalid(message, step$kind)
      ))
    })
  )
  if (profile:::is_db_profile(env$x)) problems <- c(problems, check_db_summaries(env$x))
  problems
}

# A failing pipeline as R code that reproduces it.
compose_report <- function(i, seed, run) {
  messages <- vapply(run$problems, `[[`, "", "message")
  paste(c(
    sprintf("# pipeline %d of seed %d", i, seed), "library(profile)", run$code,
    paste("# fails:", messages)
  ), collapse = "\n")
}
