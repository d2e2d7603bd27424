#' Errors raised by profile
#'
#' @description
#' Every error raised by this package is a condition of class `profile_error`,
#' and also of a subclass naming its kind:
#'
#' - `profile_error_io`: the file system refused (missing file, a directory given
#'   as a path, no permission, a failed write).
#' - `profile_error_format`: the file is not a well-formed file of the expected
#'   format (the message gives a line or byte position where there is one).
#' - `profile_error_invalid`: a profile object breaks a rule of its format (the
#'   message names the table, the column and the first offending row).
#' - `profile_error_limit`: a size is over a limit that protects memory, such as a
#'   decompression bomb (raise the limit with the `max_size` argument).
#' - `profile_error_unsupported`: well-formed input the requested version cannot
#'   represent (for example a heap profile read with `version = "1.0"`).
#' - `profile_error_argument`: an argument of the wrong type or value.
#' - `profile_error_internal`: a bug in this package; please report it.
#'
#' The condition carries the fields `kind` and, where it applies, `path`.
#'
#' @name profile_error
#' @examples
#' res <- tryCatch(
#'   read_rprof(tempfile()),
#'   profile_error = function(e) class(e)
#' )
#' res
NULL

# Raises a profile_error of the given kind. `message` is a cli template written in
# this package; its `{}` fields are looked up in `...` (and `path`, `detail`).
# `detail` is text from elsewhere (Rust, file contents) and is substituted
# literally, so braces or percent signs in it are harmless. Strings among the
# values are made valid UTF-8 first (cli fails on invalid strings, such as a
# path in another encoding); the condition's `path` field keeps the path as given.
abort_profile <- function(kind, message, ..., detail = NULL, path = NULL,
                          call = rlang::caller_env(), parent = NULL) {
  values <- lapply(list(...), utf8_for_message)
  # `[<-` with list(): a NULL path is a value too (a message may describe it).
  values["detail"] <- list(utf8_for_message(detail))
  values["path"] <- list(utf8_for_message(path))
  env <- list2env(values, parent = baseenv())
  msg <- message
  if (!is.null(detail)) {
    msg <- c(msg, x = "{detail}")
  }
  cli::cli_abort(
    msg,
    class = c(paste0("profile_error_", kind), "profile_error"),
    kind = kind,
    path = path,
    call = call,
    parent = parent,
    .envir = env
  )
}

utf8_for_message <- function(x) {
  if (is.character(x)) as_valid_utf8(x) else x
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
    if (grepl("cannot allocate", conditionMessage(e), fixed = TRUE)) {
      kind <- "limit"
    }
    abort_profile(kind, message, ..., parent = e, call = call)
  })
}
