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
#' file named `<expr>`, so that R records its lines (as profvis does); the
#' text of `<expr>` and of the source files of the functions it calls, as they
#' are at the end of the run (looked up in the working directory when their
#' names are relative), are kept in `source_lines`. Code loaded with
#' `source(file, keep.source = TRUE)` or `devtools::load_all()` has lines;
#' `Rscript` and installed packages keep no source references by default
#' (`options(keep.source = TRUE)`, `R_KEEP_PKG_SOURCE=yes`).
#'
#' The profiler is always stopped when `profile_record()` returns, also when
#' `expr` raises an error or is interrupted (the error is raised again, as it
#' was), and the file it wrote is removed unless it is `file`. R runs one
#' profiler at a time: while another runs (an [utils::Rprof()] of your own,
#' profvis, another `profile_record()`), `profile_record()` refuses with an
#' error of class `profile_error_busy` rather than stop it. (Where the system
#' cannot tell, on Windows, this check is skipped.)
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
#'   the caller's frames included.
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
#'   does not see; this check needs `/proc`, as on Linux).
#' @param threshold With allocations, only vectors larger than this many bytes
#'   are recorded (`Rprofmem(threshold = )`; new pages of small vectors always
#'   are); a threshold above 0 records allocations without `allocations =
#'   TRUE`.
#' @return A v2 profile (a `dm`): one source, of type `"rprof"`, whose
#'   `source_uri` is `file` (`NA` for a temporary file); with allocations, a
#'   second one of type `"rprofmem"` (`source_uri` `NA`).
#' @seealso [profile_view()] to look at it, [profile_summary()] for its top
#'   functions and lines.
#' @export
#' @examples
#' slow_sum <- function(n) {
#'   total <- 0
#'   for (i in seq_len(n)) total <- total + sqrt(i)
#'   total
#' }
#' x <- profile_record({
#'   v <- slow_sum(2e5)
#'   m <- matrix(runif(2e5), ncol = 100)
#'   s <- apply(m, 1, sort)
#' })
#' profile_summary(x)
#' profile_summary(x, by = "line")
#' if (interactive()) profile_view(x)
profile_record <- function(expr, ..., interval = 0.01, memory = TRUE, line = TRUE, gc = TRUE,
                           file = NULL, allocations = FALSE, threshold = 0) {
  code <- substitute(expr)
  env <- parent.frame()
  recording <- with_profile_errors("internal", "Can't start the profiler.", {
    check_dots_empty_record(...)
    start_recording(interval, memory, line, gc, file)
  })
  on.exit(stop_recording(recording), add = TRUE)
  allocs <- with_profile_errors("internal", "Can't start the allocation profiler.", {
    start_allocations(allocations, threshold)
  })
  on.exit(stop_allocations(allocs), add = TRUE)
  block <- parse_record_expr(code)
  # profile:::record_expr(<the code>), made so that its frame is named so
  eval(as.call(list(call(":::", as.name("profile"), as.name("record_expr")), block)), env)
  stop_recording(recording, remove = FALSE)
  stop_allocations(allocs, remove = FALSE)
  with_profile_errors(
    "internal", "Can't read the recording.",
    add_recorded_allocations(read_recording(recording, attr(block, "text")), allocs)
  )
}

check_dots_empty_record <- function(..., call = rlang::caller_env()) {
  if (...length() > 0L) {
    abort_argument(c(
      "{.arg ...} must be empty.",
      i = "Options after it: {.arg interval}, {.arg memory}, {.arg line}, {.arg gc}, {.arg file}."
    ), call = call)
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
  }
  if (remove && recording$temporary) {
    unlink(recording$path)
  }
}

# The code to run: `code` parsed anew from its source text as the file
# `<expr>`, so that the profiler records its lines, as one `{` block with the
# source references of its expressions (which `{` sets as it runs them). The
# text is the original where R kept it (a `{` block with source references),
# else R's deparse of the code; it is the attribute "text" of the block.
parse_record_expr <- function(code) {
  text <- record_expr_text(code)
  srcfile <- srcfilecopy("<expr>", text)
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

# The profile of the file recorded, cut to what ran inside `expr`: the frame
# record_expr() (and the frames outside it) replaced by a top-level frame that
# keeps its lines of `<expr>`, with the text of `<expr>` and of the files its
# functions name.
read_recording <- function(recording, text) {
  uri <- if (recording$temporary) NA_character_ else recording$file
  x <- read_rprof(recording$path, source_uri = uri, source_text = FALSE)
  marker <- "^profile:::record_expr$"
  x <- withCallingHandlers(profile_show_from(x, marker), profile_warning_no_match = function(w) {
    cli::cli_warn(
      c(
        "{.arg expr} ran too briefly for the profiler to take a sample.",
        i = "Try a smaller {.arg interval}."
      ),
      class = c("profile_warning_no_samples", "profile_warning")
    )
    invokeRestart("muffleWarning")
  })
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  functions <- tables$functions
  is_marker <- functions$name == "profile:::record_expr"
  functions$name[is_marker] <- "<top level>"
  functions$system_name[is_marker] <- ""
  tables$functions <- functions
  source_id <- tables$sources$source_id[[1L]]
  known <- tibble::new_tibble(list(
    source_id = rep(source_id, length(text)), filename = rep("<expr>", length(text)),
    line = seq_along(text), text = as_valid_utf8(text)
  ), nrow = length(text))
  # the files of the frames kept (those of the caller's frames are left out)
  locations <- tables$locations
  used <- locations$function_id[locations$location_id %in% tables$sample_locations$location_id]
  files <- functions$filename[functions$function_id %in% used]
  tables$source_lines <- read_source_lines(files, source_id, TRUE, known = known)
  dm_from_v2_tables(tables)
}
