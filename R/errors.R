#' Errors and warnings of profile, and the limits that protect memory
#'
#' @description
#' Every error raised by this package is a condition of class `profile_error`,
#' and also of a subclass naming its kind:
#'
#' - `profile_error_io`: the file system refused: a missing file, a directory
#'   given as a path, no permission, a read or write that failed.
#' - `profile_error_format`: the file is not a well-formed file of the expected
#'   format: empty, truncated or corrupt (gzip, bzip2, xz, protobuf), binary data
#'   in an Rprof file, references in a pprof file to strings, ids or locations
#'   that do not exist, ids that are zero or repeated, sample values that do not
#'   match the sample types, legacy profiles that are not pprof protobuf.
#' - `profile_error_invalid`: an R object given as a profile is not one, or
#'   breaks a rule of its format (the message names the table, the column and
#'   the first offending row).
#' - `profile_error_limit`: a size is over a limit that protects memory (see
#'   below).
#' - `profile_error_unsupported`: well-formed input the requested version cannot
#'   represent (for example a heap profile read with `version = "1.0"`).
#' - `profile_error_busy`: [profile_record()] was asked to record while a
#'   profiler runs already (R runs one at a time).
#' - `profile_error_argument`: an argument of the wrong type or value, or an
#'   option of this package set to a value it cannot take (such as
#'   `profile.compact`, see [profile_v2]). The functions check their arguments
#'   before any work, and the native code checks them again.
#' - `profile_error_internal`: a bug in this package (an unexpected R error, a
#'   state its Rust code should never reach, or a panic in its Rust code, which
#'   is caught and never ends the R session); please report it.
#'
#' The message names the file or argument and says what is wrong, with the
#' place where there is one: `line 12` (lines count from 1), `byte offset 4711`
#' (bytes count from 0, as `xxd` and `od` count them; for a compressed file, in
#' the decompressed data), or both. Text from files and objects (names, paths)
#' is quoted literally: `%`, `%s`, braces and the like do no harm.
#'
#' The condition carries the fields `kind` and, where it applies, `path` (the
#' path as given). An error from R or another package that this package did not
#' foresee is wrapped in a `profile_error` whose `parent` is the original;
#' R running out of memory is wrapped as `profile_error_limit`.
#'
#' # Limits
#'
#' The readers treat files as untrusted and check sizes before they allocate:
#'
#' - `max_size` (an argument of [read_rprof()] and [read_pprof()], by default
#'   the option `profile.max_size`, else 4 GiB) bounds the size of the file and
#'   of its data after decompression. A decompression bomb is refused without
#'   being held in memory: data that decompress to more than 64 times the size
#'   of the file (and more than 64 MiB) are counted, not kept, and read again
#'   only when they are within the limits.
#' - The option `profile.max_memory` (else 4 GiB) bounds the memory a read
#'   may use, in Rust and in R together. A read estimates what it needs before
#'   it allocates it (the file's data, a record per line or sample, each new
#'   frame, function and string, the columns of the samples, the copy of the
#'   profile in R) and stops with `profile_error_limit` as soon as the estimate
#'   passes the limit; the message says how much it needs, for what. While a
#'   compressed file is inflated, what its data hold so far is counted (the
#'   lines and frames of an Rprof file; the strings, samples and locations of
#'   a pprof file), so that data that would need more are refused before the
#'   rest is inflated. The default reads a real Rprof recording of 1e7 samples
#'   with memory and line profiling (a 1 GB file, for which a read needs about
#'   1.6 GB), and refuses what a hostile file claims long before the machine
#'   runs short. Where the address space of the R process is capped (`ulimit
#'   -v`, as in containers and on shared servers), the limit is never more than
#'   what is left of it, so that no allocation fails: the read stops with
#'   `profile_error_limit` instead. `options(profile.max_memory = Inf)` leaves
#'   that cap only.
#' - The data of a compressed file are recognised from their first 64 KiB:
#'   those of an Rprof file must start with its header line, those of a pprof
#'   file must show a field of a pprof message. Other data are refused there,
#'   with `profile_error_format`, without inflating the rest (bzip2 and xz data,
#'   which R decompresses, too).
#' - A stack may have at most 1 000 000 frames (R itself cannot nest calls
#'   deeper than 500 000).
#' - Lengths and counts in a pprof file are checked against the data that
#'   remain, so a length claiming 2^62 bytes is an error at once; inlined lines
#'   may not make the stacks of a pprof file more than 32 frames per byte of
#'   the file (or 2^20 frames in all, whichever is more).
#' - A v2 profile holds at most 2^31 - 1 rows per table (R's integer ids); a
#'   pprof file written by [write_pprof()] at most 2^28 sample values (samples
#'   times sample types).
#'
#' # Writing
#'
#' [write_rprof()] and [write_pprof()] write to a temporary file in the
#' directory of the target and rename it when it is complete. On any error the
#' temporary file is removed and a file that was already there keeps its
#' bytes. A replaced file keeps its permissions.
#'
#' # Warnings
#'
#' Every warning of this package is a condition of class `profile_warning`,
#' and also of a subclass naming its kind. Their texts stay as they are (those
#' of [read_rprof()] are profile 1.0.x's): match on the class.
#'
#' - `profile_warning_incomplete` ([read_rprof()]): a line was cut off (the
#'   profiled process was killed); it is read up to its last complete frame.
#'   The text: ``Incomplete sampling information, increase bufsize in `Rprof()`
#'   or `start_profiler()` call``.
#' - `profile_warning_unexpected` ([read_rprof()]): text that is not a frame
#'   in a line, which is read without it. The text: `Removing unexpected
#'   incomplete sampling information.`
#' - `profile_warning_undefined_file` ([read_rprof()]): a line profiling
#'   reference to a file number that no `#File` line names; the frame's file
#'   name is left empty.
#' - `profile_warning_no_match` (the verbs of [profile_verbs]): a pattern or
#'   label filter matched no sample.
#' - `profile_warning_dropped` ([combine_profiles()]): tables and columns that
#'   are not part of the v2 format were dropped.
#' - `profile_warning_no_samples` ([profile_record()]): the profiler took no
#'   sample of the expression, which ran too briefly or used little CPU time
#'   of the R process (it waited, or other processes did its work); the
#'   profile has none.
#' - `profile_warning_under_counted` ([profile_record()]): the samples account
#'   for much less time than the CPU time the expression used, because the
#'   system delivered the profiler's ticks less often than every `interval`.
#'
#' # Encoding
#'
#' Names and paths are UTF-8 in R. Bytes from files that are not valid UTF-8
#' become `<xx>` (see the section "Strings" of [profile_v2]); strings given in
#' other encodings are converted, and invalid bytes in them become `<xx>` too.
#' A path is used to open the file as it is given (its bytes), and is shown in
#' messages with invalid bytes as `<xx>`.
#'
#' @name profile_error
#' @examples
#' res <- tryCatch(
#'   read_rprof(tempfile()),
#'   profile_error = function(e) class(e)
#' )
#' res
#'
#' # What went wrong, and where
#' bad <- tempfile()
#' writeBin(c(charToRaw('sample.interval=20000\n"f" '), as.raw(0)), bad)
#' try(read_rprof(bad))
#'
#' # A limit
#' try(read_rprof(system.file("samples/rprof/1.out", package = "profile"), max_size = 100))
#'
#' # A warning, by its class
#' x <- withCallingHandlers(
#'   read_rprof(system.file("samples/rprof/incomplete.out", package = "profile")),
#'   profile_warning_incomplete = function(w) {
#'     message("a line was cut off")
#'     invokeRestart("muffleWarning")
#'   }
#' )
NULL

# Raises a profile_error of the given kind. `message` is a cli template written in
# this package; its `{}` fields are looked up in `...` (and `path`, `detail`).
# `detail` is text from elsewhere (Rust, file contents) and is substituted
# literally, so braces or percent signs in it are harmless. Strings among the
# values are made valid UTF-8 first (cli fails on invalid strings, such as a
# path in another encoding); the condition's `path` field keeps the path as given.
#
# The message is built once, here: its fields are filled (the header becomes the
# condition's `message`, the bullets its `body`, as cli::cli_abort() makes
# them) and its text is made, which the condition keeps for conditionMessage().
# cli::cli_abort() would leave the text to every conditionMessage() (R calls
# one as it signals the error), which formats it through cli each time: most
# of the time of a refused read (see "Refused reads" in bench/README.md).
abort_profile <- function(kind, message, ..., detail = NULL, path = NULL,
                          call = rlang::caller_env(), parent = NULL) {
  values <- lapply(list(...), utf8_if_character)
  # `[<-` with list(): a NULL path is a value too (a message may describe it).
  values["detail"] <- list(utf8_if_character(detail))
  values["path"] <- list(utf8_if_character(path))
  if (!is.null(detail)) {
    message <- c(message, x = "{detail}")
  }
  built <- condition_text(message, values)
  # (rlang::abort() keeps the first element as `message`, the others as `body`)
  header <- built$inline[1]
  body <- if (length(built$inline) > 1L) built$inline[-1]
  rlang::abort(
    built$inline,
    class = c(paste0("profile_error_", kind), "profile_error"),
    kind = kind,
    path = path,
    call = call,
    parent = parent,
    use_cli_format = TRUE,
    message_text = list(message = header, body = body, text = built$text),
    trace = error_trace(call, parent)
  )
}

# The text of a profile_error, as rlang gives it (through cli) for any other
# error of rlang: the text built as the error was raised, while its header and
# bullets are those it was built from; rlang's own otherwise, and for an error
# that wraps another (whose message follows) or that rlang has marked to show
# its backtrace. (Printing an error formats it afresh, for the width it is
# shown in.)
#' @export
#' @noRd
conditionMessage.profile_error <- function(c) {
  built <- c[["message_text"]]
  plain <- is.null(c[["parent"]]) && is.null(c[["rlang"]][["internal"]][["backtrace_on_error"]])
  if (is.list(built) && plain) {
    if (identical(built$message, c[["message"]]) && identical(built$body, c[["body"]])) {
      return(built$text)
    }
  }
  NextMethod()
}

# The backtrace rlang::abort() would take, up to the frame of `call`, taken
# by rlang::trace_back(): abort() takes it under four options set and reset,
# which cost more than the rest of a refused read. NULL (abort() takes it)
# where `call` is not a frame on the stack, or the error wraps another.
error_trace <- function(call, parent) {
  if (!is.null(parent) || !is.environment(call)) {
    return(NULL)
  }
  for (frame in sys.frames()) {
    if (identical(frame, call)) {
      return(rlang::trace_back(bottom = call))
    }
  }
  NULL
}

# Unwraps a result envelope from the Rust binding, raising its error if it holds one.
rust_value <- function(res, message, path = NULL, call = rlang::caller_env()) {
  if (isTRUE(res$ok)) {
    return(res$value)
  }
  abort_profile(res$kind, message, detail = res$message, path = path, call = call)
}

abort_argument <- function(message, call = rlang::caller_env(), ...) {
  abort_profile("argument", message, call = call, ...)
}

# The error for `x`, an argument that is not a profile. `subject` is the cli
# template that names it (`{.arg x}`, `{.arg {arg}}`, `{label}`), with its values
# in `...`.
abort_not_profile <- function(x, subject = "{.arg x}", ..., call = rlang::caller_env()) {
  abort_argument(
    paste(
      subject, "must be a profile (a v2 {.cls dm} or a v1 {.cls profile_data}),",
      "not {.obj_type_friendly {x}}."
    ),
    x = x, ..., call = call
  )
}

# Runs `expr`, the body of an exported function, so that every error it raises is
# a profile_error. The package's own errors pass unchanged. Any other error (an R
# or package function failing on an input nobody foresaw) becomes a profile_error
# of class `kind` with the original as its parent; R failing to allocate memory
# becomes `profile_error_limit`.
with_profile_errors <- function(kind, message, expr, ..., call = rlang::caller_env()) {
  withCallingHandlers(expr, error = function(e) {
    if (inherits(e, "profile_error")) {
      return()
    }
    if (is_allocation_failure(e)) {
      kind <- "limit"
    }
    abort_profile(kind, message, ..., parent = e, call = call)
  })
}

# R's messages for memory it could not get (message ids of its "R" domain, in
# src/main/memory.c and elsewhere). R raises them as plain errors, without a
# class, in the session's language.
r_allocation_messages <- c(
  "cannot allocate vector of size %0.1f Gb",
  "cannot allocate vector of size %0.1f Mb",
  "cannot allocate vector of size %0.f Kb",
  "cannot allocate vector of length %d",
  "cannot allocate memory block of size %0.1f Gb",
  "cannot allocate memory block of size %0.f Tb",
  "vector memory exhausted (limit reached?)",
  "cons memory exhausted (limit reached?)",
  "memory exhausted (limit reached?)"
)

# Whether `e` is R failing to allocate memory, in any language: its message
# matched against R's messages as the session translates them (gettext() in R's
# domain, the translation R used for the error), and against the untranslated
# words that other packages' English messages share.
is_allocation_failure <- function(e) {
  text <- conditionMessage(e)
  if (grepl("cannot allocate", text, fixed = TRUE)) {
    return(TRUE)
  }
  translated <- unique(gettext(r_allocation_messages, domain = "R", trim = FALSE))
  any(vapply(translated, function(template) {
    grepl(template_pattern(template), text, perl = TRUE)
  }, logical(1)))
}

# A regular expression that matches the text sprintf() makes from `template`:
# its literal parts in order, anything where a conversion (`%d`, `%0.1f`,
# `%1$s`) stands.
template_pattern <- function(template) {
  literal <- strsplit(template, "%[0-9]*\\$?[-+ #0-9.]*[a-zA-Z]", perl = TRUE)[[1]]
  literal <- gsub("([][{}()*+?.\\\\^$|])", "\\\\\\1", literal, perl = TRUE)
  paste(literal, collapse = ".*")
}
