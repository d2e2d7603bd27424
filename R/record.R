#' Record a profile of R code
#'
#' `profile_record()` runs `expr` under R's profiler, [utils::Rprof()], and
#' returns what it recorded as a v2 profile (see [profile_v2]), with the text
#' of the code in the table `source_lines`: `profile_view(profile_record(expr))`
#' shows it in the browser, with the time and memory of each line beside the
#' flame graph, as `profvis::profvis(expr)` does (see the vignette section
#' "Coming from profvis").
#'
#' The profiler samples the call stack every `interval` seconds while `expr`
#' runs, in the environment `profile_record()` is called from, as if it were
#' typed there. Only what runs inside `expr` is kept: the frames of the code
#' that called `profile_record()` are cut off, and the samples taken before
#' and after `expr` are dropped. Each sample's outermost frame is then
#' `<top level>` (see "The top level" in [profile_v2]): with `line = TRUE` its
#' line is the line of `expr` that was running. `expr` is parsed anew from its
#' source text (its original text when R kept it, else as R deparses it) as a
#' file named `<expr:HASH>`, so that R records its lines (as profvis does).
#' `HASH` is the first 8 hex digits of a hash of the text (such as
#' `<expr:3f2a9c1e>`): recordings of different code keep their lines apart in
#' [combine_profiles()], a database of profiles, `profile_summary(by = "line")`
#' and the source panel of [profile_view()], and those of the same code add
#' up. The
#' text of the code and of the source files of the functions it calls, as they
#' are at the end of the run (looked up in the working directory when their
#' names are relative), are kept in `source_lines`. Code loaded with
#' `source(file, keep.source = TRUE)` or `devtools::load_all()` has lines;
#' `Rscript` and installed packages keep no source references by default
#' (`options(keep.source = TRUE)`, `R_KEEP_PKG_SOURCE=yes`).
#'
#' R's profiler samples the CPU time of the R process: time that `expr` spends
#' waiting ([Sys.sleep()], input and output) or in other processes
#' ([system()], callr, parallel workers) is not this process's: the R
#' processes that work for `expr` are recorded as sources of their own (see
#' "Parallel code"), other processes not at all. A recording without
#' any sample warns (class `profile_warning_no_samples`), saying whether `expr`
#' ran too briefly or used little CPU time. The system delivers the profiler's
#' ticks at the resolution of its clock (every 4 ms on many Linux systems),
#' not more often, and fewer of them on a machine with more busy processes
#' than cores: when the samples account for much less time than the CPU time
#' `expr` used (an `interval` of 0.001 s there), `profile_record()` warns that
#' the times are under-counted (class `profile_warning_under_counted`), with
#' the interval the system kept.
#'
#' The profiler is always stopped when `profile_record()` returns, also when
#' `expr` raises an error or is interrupted (the error is raised again, as it
#' was), and the file it wrote is removed unless it is `file`. R runs one
#' profiler at a time: while another runs (an [utils::Rprof()] of your own,
#' profvis, another `profile_record()`), `profile_record()` refuses with an
#' error of class `profile_error_busy` rather than stop it. (Where the system
#' cannot tell, on Windows, this check is skipped.)
#'
#' @section Parallel code:
#' The R processes that work for `expr` are recorded too, each as a source of
#' its own (`source_type` `"rprof"`), with the extension columns `process_id`
#' (the process's id), `host_name` and `process_role` (`"main"` for the
#' process that called `profile_record()`, `"worker"` for the others) of
#' `sources`. A worker's stacks start at the frame `<top level>`, where its
#' task starts: the frames of the worker's own machinery (`workLoop()`,
#' `workCommand()`, `mclapply()`'s, those of [profile_task()]) are cut off, and
#' its samples between tasks are dropped. How each kind of worker is reached:
#'
#' - PSOCK clusters started inside `expr` ([parallel::makePSOCKcluster()],
#'   `future`'s `multisession`): while `expr` runs, `R_PROFILE_USER` names a
#'   startup file of the recording, which starts the profiler of an R process
#'   that is a PSOCK worker (whose command line runs `.workRSOCK()`) and then
#'   runs your own startup file as R would have (`R_PROFILE_USER` as it was,
#'   else `.Rprofile` in the working directory, else in your home). Such a
#'   cluster should be stopped inside `expr` (as `parallel`'s examples do):
#'   each worker stops its profiler as its process ends, and
#'   `profile_record()` waits for that (up to 2 seconds), so that their files
#'   are complete.
#' - A cluster made before: `workers = cl` starts the profiler on its nodes
#'   (by [parallel::clusterCall()]) and stops it when `expr` ends.
#' - Forked children ([parallel::mclapply()], [parallel::mcparallel()],
#'   `future`'s `multicore`), `callr` and any other backend: run the work
#'   through [profile_task()], which profiles itself wherever it runs. The
#'   table `tasks` keeps the wall-clock start and end of each of its calls
#'   (`start_time`, `end_time`, seconds since the epoch), the source that ran
#'   it and how it ended (`status`: `"ok"`, `"error"`, or `"unfinished"` when
#'   the process ended during it, which a warning of class
#'   `profile_warning_worker_lost` names).
#'
#' R's profiler counts CPU time, so the time the main process spends waiting
#' for its workers leaves no sample. While it records, a thread watches its CPU
#' time and the wall clock (every 5 ms, and less often, up to every 50 ms,
#' while the process waits), and the table `waits` of a recording
#' of several processes keeps each stretch of at least 20 ms (and one
#' `interval`) in which the main process was blocked (it used less than a
#' quarter of the time on a CPU or, on Linux, waiting for one): its wall-clock
#' start and end (`start_time`, `end_time`) and the CPU time its samples had
#' reached then (`cpu_time`). [profile_view()] draws them where they happened
#' in the main process's lane.
#'
#' Workers must run on this host (or share its temporary folder) and have
#' `profile` installed. With `allocations = TRUE`, a task of [profile_task()]
#' in a process that does not profile itself from its start (a forked child,
#' a `callr` process) records its allocations too, in an `"rprofmem"` source
#' of that process (cut as its time samples are); the workers of PSOCK
#' clusters (started inside `expr` or given as `workers`) record time only.
#' R's allocation profiler keeps running in a forked child: every child
#' forked while `expr` runs (with or without [profile_task()]) points the
#' recording's files to `/dev/null` as it starts (by `pthread_atfork()`), so
#' that it writes nothing into the main process's. With
#' `file` an existing folder, the folder keeps one
#' Rprof file per process: `rprof-main.out` and `rprof-PID-N.out` (each a
#' `source_uri`), which [utils::summaryRprof()] reads, and the allocations
#' of the workers in `rprofmem-PID-N.out` files. Afterwards every
#' profiler `profile_record()` started is stopped and the environment
#' variables it set are as they were, also on an error or an interrupt.
#'
#' @param expr The code to run.
#' @param ... These dots are for future extensions and must be empty.
#' @param interval The time between samples, in seconds, below 1
#'   (`Rprof(interval = )`; R's default is 0.02, profvis's 0.01).
#' @param memory Whether to record memory use (`Rprof(memory.profiling = )`):
#'   the profile then has the sample types `alloc_size` (bytes allocated since
#'   the previous sample) and `duplications`, and the heap sizes (see
#'   [profile_v2]).
#' @param line Whether to record the line of each frame
#'   (`Rprof(line.profiling = )`), for code that has source references.
#' @param gc Whether samples taken while R collects garbage show it as a frame
#'   `<GC>` (`Rprof(gc.profiling = )`).
#' @param file `NULL` (default) for a temporary file, removed afterwards; or
#'   the path of the Rprof file to write, which is kept (for
#'   [utils::summaryRprof()] or [read_rprof()]); it holds the whole recording,
#'   the caller's frames included. An existing folder keeps one Rprof file per
#'   process (see "Parallel code").
#' @param allocations Whether to record every allocation as well, with R's
#'   allocation profiler [utils::Rprofmem()] running beside [utils::Rprof()]
#'   (see [read_rprofmem()]): the profile then has a second source, of type
#'   `"rprofmem"`, whose samples are allocations (`alloc_space` in bytes and
#'   `alloc_objects`), cut as the time samples are (frames outside `expr` cut
#'   off, the frame that ran `expr` the top level, allocations outside `expr`
#'   dropped), its functions those of the time profile where one has the
#'   name. R runs one `Rprofmem()` at a time: while another runs,
#'   `profile_record()` refuses with `profile_error_busy` (it tells by a
#'   probe allocation of 1 MiB, which an `Rprofmem()` of a higher threshold
#'   does not see; this check needs `/proc`, as on Linux). For the
#'   allocations of workers, see "Parallel code".
#' @param threshold With allocations, only vectors larger than this many bytes
#'   are recorded (`Rprofmem(threshold = )`; new pages of small vectors always
#'   are); a threshold above 0 records allocations without `allocations =
#'   TRUE`.
#' @param label `NULL` (default) or a name for the recording (a string), kept
#'   in the extension column `source_label` of `sources`, so that the runs of
#'   a database or of a combined profile can be told apart; [write_otlp()]
#'   writes it as the attribute `r.profile.source_label`.
#' @param workers `NULL` (default), or a cluster of `parallel` (or a list of
#'   clusters) made before the call, whose nodes are profiled while `expr`
#'   runs (see "Parallel code").
#' @return A v2 profile (a `dm`): one source per process (see "Parallel
#'   code"), of type `"rprof"`; the main process's has
#'   `source_uri` `file` (`NA` for a temporary file), `source_timestamp`
#'   the time the recording started (seconds since the epoch, as
#'   [Sys.time()]), `duration_nanos` how long `expr` ran (in nanoseconds) and
#'   `source_label` the `label`; with allocations, a second one of type
#'   `"rprofmem"` (`source_uri` `NA`).
#' @seealso [profile_view()] to look at it, [profile_summary()] for its top
#'   functions and lines.
#' @export
#' @examples
#' slow_sum <- function(n) {
#'   total <- 0
#'   for (i in seq_len(n)) total <- total + sqrt(i)
#'   total
#' }
#' x <- profile_record(
#'   {
#'     v <- slow_sum(2e5)
#'     m <- matrix(runif(2e5), ncol = 100)
#'     s <- apply(m, 1, sort)
#'   },
#'   label = "sums and sorts"
#' )
#' dm::dm_get_tables(x)$sources[c("source_label", "source_timestamp")]
#' profile_summary(x)
#' profile_summary(x, by = "line")
#' if (interactive()) profile_view(x)
profile_record <- function(expr, ..., interval = 0.01, memory = TRUE, line = TRUE, gc = TRUE,
                           file = NULL, allocations = FALSE, threshold = 0, label = NULL,
                           workers = NULL) {
  code <- substitute(expr)
  env <- parent.frame()
  folder <- recording_folder(file)
  recording <- with_profile_errors("internal", "Can't start the profiler.", {
    check_dots_empty_record(...)
    check_label(label)
    check_workers(workers, rlang::current_env())
    start_recording(interval, memory, line, gc, folder$main)
  })
  recording$label <- if (is.null(label)) NA_character_ else label
  on.exit(stop_recording(recording), add = TRUE)
  allocs <- with_profile_errors("internal", "Can't start the allocation profiler.", {
    start_allocations(allocations, threshold)
  })
  on.exit(stop_allocations(allocs), add = TRUE)
  flags <- list(memory = memory, line = line, gc = gc)
  parallel <- start_workers(recording, workers, folder$dir, flags, allocs, threshold)
  on.exit(finish_workers(parallel), add = TRUE)
  block <- parse_record_expr(code)
  clock <- proc.time()
  # profile:::record_expr(<the code>), made so that its frame is named so
  eval(as.call(list(call(":::", as.name("profile"), as.name("record_expr")), block)), env)
  used <- time_used_since(clock)
  stop_recording(recording, remove = FALSE)
  stop_allocations(allocs, remove = FALSE)
  finish_workers(parallel, remove = FALSE)
  # (its waits, which read_recording() puts on the samples' clock)
  parallel$recording <- recording
  with_profile_errors(
    "internal", "Can't read the recording.",
    # (the main process's profile as a promise: read_workers() reads it where
    # it keeps the warning that the main process took no sample, which holds
    # only when no worker took one either)
    read_workers(add_recorded_allocations(read_recording(recording, block, used), allocs), parallel)
  )
}

check_dots_empty_record <- function(..., call = rlang::caller_env()) {
  if (...length() > 0L) {
    abort_argument(c(
      "{.arg ...} must be empty.",
      i = paste(
        "Options after it: {.arg interval}, {.arg memory}, {.arg line}, {.arg gc},",
        "{.arg file}, {.arg allocations}, {.arg threshold}, {.arg label}, {.arg workers}."
      )
    ), call = call)
  }
}

check_label <- function(label, call = rlang::caller_env()) {
  if (!is.null(label) && !(rlang::is_string(label) && !is.na(label))) {
    abort_argument("{.arg label} must be {.code NULL} or a single string.", call = call)
  }
}

# The frame around the code that profile_record() runs: its argument is that
# code, evaluated where profile_record() was called (a promise forced here),
# so the code's frames are the ones inside it.
record_expr <- function(code) {
  code
}

# Whether a profiler runs in this process: TRUE, FALSE, or NA where the system
# cannot tell (src/rust/src/record.rs).
profiler_running <- function() {
  rust_value(ffi_profiler_running(), "Can't tell whether a profiler runs.")
}

# Checks the arguments, refuses when a profiler runs, and starts Rprof();
# returns what stop_recording() and read_recording() need.
start_recording <- function(interval, memory, line, gc, file, call = rlang::caller_env()) {
  check_record_args(interval, memory, line, gc, file, call = call)
  if (isTRUE(profiler_running())) {
    abort_profile("busy", c(
      "Can't record a profile: a profiler is already running in this R session.",
      i = "R runs one profiler at a time; stop the other one (such as {.code Rprof(NULL)}) first."
    ), call = call)
  }
  path <- if (is.null(file)) tempfile("profile-record-", fileext = ".out") else native_path(file)
  started_at <- as.numeric(Sys.time())
  started <- tryCatch(
    {
      utils::Rprof(path,
        interval = interval, memory.profiling = memory, line.profiling = line,
        gc.profiling = gc
      )
      TRUE
    },
    error = function(e) e,
    warning = function(w) w
  )
  if (!isTRUE(started)) {
    utils::Rprof(NULL)
    if (is.null(file)) unlink(path)
    abort_profile("io", "Can't start the profiler with the file {.file {path}}.",
      detail = conditionMessage(started), path = path, call = call
    )
  }
  state <- new.env(parent = emptyenv())
  state$path <- path
  state$temporary <- is.null(file)
  state$file <- file
  state$running <- TRUE
  state$interval <- interval
  state$started <- started_at
  state$watching <- start_wait_watch(interval)
  state
}

check_record_args <- function(interval, memory, line, gc, file, call) {
  # (R's profiler ends the R session when asked for an interval of 1 s or more)
  if (!is_number_in(interval, 0, 1)) {
    abort_argument("{.arg interval} must be a number of seconds above 0 and below 1.", call = call)
  }
  flags <- list(memory = memory, line = line, gc = gc)
  for (flag in names(flags)[!vapply(flags, rlang::is_bool, logical(1))]) {
    abort_argument("{.arg {flag}} must be {.code TRUE} or {.code FALSE}.", flag = flag, call = call)
  }
  if (!is.null(file) && !is_path_string(file)) {
    abort_argument("{.arg file} must be {.code NULL} or a single file path.", call = call)
  }
}

# Whether `x` is a single number strictly between `lower` and `upper`.
is_number_in <- function(x, lower, upper) {
  is.numeric(x) && length(x) == 1L && !is.na(x) && x > lower && x < upper
}

is_path_string <- function(x) {
  rlang::is_string(x) && !is.na(x) && nzchar(x)
}

# Stops the profiler (once) and, unless `remove` is FALSE, removes a
# temporary file.
stop_recording <- function(recording, remove = TRUE) {
  if (recording$running) {
    utils::Rprof(NULL)
    recording$running <- FALSE
    if (isTRUE(recording$watching)) recording$waits <- stop_wait_watch()
  }
  if (remove && recording$temporary) {
    unlink(recording$path)
  }
}

# The code to run: `code` parsed anew from its source text as the file
# `<expr:HASH>` (see record_file_name()), so that the profiler records its
# lines, as one `{` block with the source references of its expressions
# (which `{` sets as it runs them). The text is the original where R kept
# it (a `{` block with source references), else R's deparse of the code; it
# is the attribute "text" of the block.
parse_record_expr <- function(code) {
  text <- record_expr_text(code)
  srcfile <- srcfilecopy(record_file_name(text), text)
  parsed <- tryCatch(
    parse(text = text, keep.source = TRUE, srcfile = srcfile),
    error = function(e) NULL
  )
  if (is.null(parsed) || !length(parsed)) {
    # the deparse could not be parsed (rare): the code as it is, without lines
    block <- call("{", code)
    attr(block, "text") <- character()
    return(block)
  }
  block <- as.call(c(list(as.name("{")), as.list(parsed)))
  refs <- attr(parsed, "srcref")
  attr(block, "srcref") <- c(refs[1L], refs)
  attr(block, "srcfile") <- srcfile
  attr(block, "text") <- text
  block
}

# The file name of the code of a recording, `<expr:HASH>`: HASH is the first
# 8 hex digits of a hash of the code's text, so that the lines of recordings of
# different code stay apart when profiles are combined, and those of the same
# code add up.
record_file_name <- function(text) {
  hash <- rlang::hash(enc2utf8(paste(text, collapse = "\n")))
  paste0("<expr:", substr(hash, 1L, 8L), ">")
}

record_expr_text <- function(code) {
  srcref <- attr(code, "srcref")
  whole <- attr(code, "wholeSrcref")
  if (is.call(code) && identical(code[[1L]], as.name("{")) && length(srcref) && !is.null(whole)) {
    first <- srcref[[1L]]
    lines <- getSrcLines(attr(first, "srcfile"), first[[1L]], whole[[3L]])
    n <- length(lines)
    if (n) {
      lines[[n]] <- substr(lines[[n]], 1L, whole[[6L]])
      lines[[1L]] <- substring(lines[[1L]], first[[5L]])
      return(lines)
    }
  }
  deparse(code, width.cutoff = 80L)
}

# The CPU time (of this process, in seconds) and the elapsed time since
# `clock`, a proc.time().
time_used_since <- function(clock) {
  now <- proc.time()
  list(
    cpu = sum(now[c("user.self", "sys.self")]) - sum(clock[c("user.self", "sys.self")]),
    elapsed = now[["elapsed"]] - clock[["elapsed"]]
  )
}

# The profile of the file recorded, cut to what ran inside `expr`: the frame
# record_expr() (and the frames outside it) replaced by a top-level frame that
# keeps its lines of the code, with the text of the code (`block`, see
# parse_record_expr()) and of the files its functions name; the source stamped
# with the time the recording started and how long `expr` ran (`used`, see
# time_used_since()).
read_recording <- function(recording, block, used) {
  uri <- if (recording$temporary) NA_character_ else recording$file
  x <- read_rprof(recording$path, source_uri = uri, source_text = FALSE)
  recording$waits <- waits_on_sample_clock(
    recording$waits, max(c(0, dm::dm_get_tables(x)$samples$time), na.rm = TRUE) + recording$interval
  )
  x <- cut_to_expr(x, used, recording$interval)
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  functions <- tables$functions
  is_marker <- functions$name == "profile:::record_expr"
  functions$name[is_marker] <- "<top level>"
  functions$system_name[is_marker] <- ""
  tables$functions <- functions
  tables$sources$source_timestamp <- recording$started
  tables$sources$duration_nanos <- round(used$elapsed * 1e9)
  tables$sources$source_label <- as_valid_utf8(recording$label)
  warn_if_under_counted(nrow(tables$samples), used, recording$interval)
  tables$source_lines <- recorded_source_lines(tables, block)
  dm_from_v2_tables(tables)
}

# The samples of the recording `x` taken inside `expr` (see read_recording());
# a warning when there are none, saying why (see no_samples_reason()).
cut_to_expr <- function(x, used, interval) {
  marker <- "^profile:::record_expr$"
  withCallingHandlers(profile_show_from(x, marker), profile_warning_no_match = function(w) {
    cli::cli_warn(no_samples_reason(used, interval),
      class = c("profile_warning_no_samples", "profile_warning")
    )
    invokeRestart("muffleWarning")
  })
}

# Why a recording has no sample: R's profiler samples the CPU time of its own
# process, so code that waits (Sys.sleep(), input and output) or whose work is
# done by other processes (system(), callr, workers) gives none, however long
# it runs; otherwise the code ran too briefly.
no_samples_reason <- function(used, interval) {
  if (used$elapsed >= 2 * interval && used$cpu < used$elapsed / 2) {
    # (the values written in: cli interpolates in the caller's frame)
    return(c(
      sprintf(
        "The profiler took no sample of {.arg expr}: it ran for %s but used %s of CPU time.",
        format_seconds(used$elapsed), format_seconds(used$cpu)
      ),
      i = paste(
        "The profiler samples the CPU time of this R process: time spent waiting",
        "(such as {.fn Sys.sleep}, input and output) or in other processes",
        "(such as {.fn system}, {.pkg callr}, parallel workers) is not recorded."
      )
    ))
  }
  c(
    "{.arg expr} ran too briefly for the profiler to take a sample.",
    i = "Try a smaller {.arg interval}."
  )
}

# A warning when the profiler took far fewer samples than the CPU time of
# `expr` asks for: the system delivers the profiler's ticks at the resolution
# of its clock (every 4 ms on many Linux systems), not at every `interval` if
# that is shorter, so that the recording under-counts time.
warn_if_under_counted <- function(n_samples, used, interval) {
  sampled <- n_samples * interval
  if (used$cpu < max(0.2, 20 * interval) || sampled >= 0.75 * used$cpu) {
    return(invisible())
  }
  # (used in the message's glue, which lintr does not read)
  tick <- if (n_samples > 0) used$cpu / n_samples else NA_real_ # nolint: object_usage_linter.
  cli::cli_warn(
    c(
      paste(
        "The profiler took {n_samples} sample{?s} ({format_seconds(sampled)} at an",
        "{.arg interval} of {interval} s), but {.arg expr} used",
        "{format_seconds(used$cpu)} of CPU time: its times are under-counted."
      ),
      i = paste(
        "The system delivered the profiler's ticks about every",
        "{format_seconds(tick)}, not every {interval} s.",
        "Use an {.arg interval} of {signif(tick, 2)} s or more."
      )
    ),
    class = c("profile_warning_under_counted", "profile_warning")
  )
}

# The table source_lines of a recording: the text of the code (the file
# recorded as parse_record_expr() named it) and of the source files of the
# frames kept (those of the caller's frames are left out).
recorded_source_lines <- function(tables, block) {
  text <- attr(block, "text")
  name <- attr(block, "srcfile")$filename
  source_id <- tables$sources$source_id[[1L]]
  n <- length(text)
  known <- tibble::new_tibble(list(
    source_id = rep(source_id, n), filename = rep(if (n) name else character(), n),
    line = seq_len(n), text = as_valid_utf8(text)
  ), nrow = n)
  functions <- tables$functions
  locations <- tables$locations
  used <- locations$function_id[locations$location_id %in% tables$sample_locations$location_id]
  files <- functions$filename[functions$function_id %in% used]
  read_source_lines(files, source_id, TRUE, known = known)
}
