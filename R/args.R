# Argument checks shared by the file readers and writers. Each raises an error of
# class `profile_error_argument` naming the argument.

# The arguments of a reader (read_rprof(), read_pprof()), checked in the order
# of its signature: `...` empty, then `path` (a readable file, last: the file
# system is asked once the values are known to be good), `version`,
# `source_uri`, `max_size`, `source_text`, and the option `profile.max_memory`.
# Returns the checked values.
check_read_args <- function(path, ..., version, source_uri, max_size, source_text,
                            call = rlang::caller_env()) {
  check_dots_unused(..., call = call)
  path <- check_file_path(path, call = call)
  args <- list(
    version = check_version_arg(version, call = call),
    source_uri = check_source_uri(source_uri, call = call),
    max_size = check_max_size(max_size, call = call),
    source_text = check_source_text(source_text, call = call),
    max_memory = default_max_memory(call = call)
  )
  check_readable_file(path, call = call)
  args
}

check_dots_unused <- function(..., call = rlang::caller_env()) {
  n <- ...length()
  if (n > 0L) {
    abort_argument(
      paste(
        "{n} unused argument{?s} in {.code ...}; the options are named: {.arg version},",
        "{.arg source_uri}, {.arg max_size}, {.arg source_text}."
      ),
      n = n, call = call
    )
  }
}

check_file_path <- function(path, call = rlang::caller_env()) {
  if (!is.character(path) || length(path) != 1L || is.na(path) || !nzchar(path)) {
    abort_argument("{.arg path} must be a single file path, not {.obj_type_friendly {path}}.",
      path = path, call = call
    )
  }
  path
}

# The version a reader returns when its `version` is not given: the option
# `profile.version` ("1.0" or "2.0"), else "2.0". Every reader takes it as the
# default of its `version` argument (`version = default_version()`), so that
# `options(profile.version = "1.0")` makes a script written for profile 1.0.x
# get v1 objects from all of them; an explicit `version` wins. An option that is
# neither is an error of class `profile_error_argument` naming it.
default_version <- function(call = rlang::caller_env()) {
  version <- getOption("profile.version")
  if (is.null(version)) {
    return("2.0")
  }
  if (is.numeric(version) && length(version) == 1L && !is.na(version)) {
    version <- format(version, nsmall = 1)
  }
  if (!is.character(version) || length(version) != 1L || !version %in% c("1.0", "2.0")) {
    abort_argument(
      paste(
        "The option {.code profile.version} must be {.val 2.0} or {.val 1.0}, not",
        "{.obj_type_friendly {version}}."
      ),
      version = version, call = call
    )
  }
  version
}

check_version_arg <- function(version, call = rlang::caller_env()) {
  if (is.numeric(version) && length(version) == 1L && !is.na(version)) {
    version <- format(version, nsmall = 1)
  }
  if (!is.character(version) || length(version) != 1L || !version %in% c("1.0", "2.0")) {
    abort_argument("{.arg version} must be {.val 2.0} or {.val 1.0}.", call = call)
  }
  version
}

check_source_uri <- function(source_uri, call = rlang::caller_env()) {
  if (length(source_uri) == 1L && is.na(source_uri)) {
    return(NA_character_)
  }
  if (!is.character(source_uri) || length(source_uri) != 1L) {
    abort_argument("{.arg source_uri} must be a single string or {.code NA}.", call = call)
  }
  as_valid_utf8(source_uri)
}

check_max_size <- function(max_size, call = rlang::caller_env()) {
  if (!is.numeric(max_size) || length(max_size) != 1L || is.na(max_size) || max_size < 0) {
    abort_argument("{.arg max_size} must be a non-negative number of bytes.", call = call)
  }
  # Inf means no limit; Rust takes a finite number.
  min(as.double(max_size), 2^62)
}

# The default of the readers' `source_text`: the option `profile.source_text`,
# else TRUE.
default_source_text <- function() {
  getOption("profile.source_text", TRUE)
}

# `source_text`: TRUE, FALSE, or the directory where relative file names are
# looked up (see read_source_lines(), R/source-text.R).
check_source_text <- function(source_text, call = rlang::caller_env()) {
  is_dir <- rlang::is_string(source_text) && !is.na(source_text) && nzchar(source_text)
  if (!rlang::is_bool(source_text) && !is_dir) {
    abort_argument(c(
      "{.arg source_text} must be {.code TRUE}, {.code FALSE} or a directory.",
      x = "It is {.obj_type_friendly {source_text}}."
    ), source_text = source_text, call = call)
  }
  source_text
}

# An existing file (not a directory) to read; the error names the file.
check_readable_file <- function(path, call = rlang::caller_env()) {
  if (dir.exists(path)) {
    abort_profile("io", "Can't read {.file {path}}: it is a directory.", path = path, call = call)
  }
  if (!file.exists(path)) {
    abort_profile(
      "io", "Can't read {.file {path}}: the file does not exist.",
      path = path, call = call
    )
  }
  if (file.access(path, 4L) != 0L) {
    abort_profile("io", "Can't read {.file {path}}: permission denied.", path = path, call = call)
  }
  invisible(path)
}

# A path as the file system wants it (for Rust, which takes its bytes as they
# are): `~` expanded, in the native encoding. (path.expand() translates a path
# marked latin1 or UTF-8 and keeps the bytes of a native one; enc2native() would
# replace bytes that are not valid in the locale, naming another file.)
native_path <- function(path) {
  path.expand(path)
}

# The default of `max_size`: the option `profile.max_size`, else the core's
# default (4 GiB).
default_max_size <- function() {
  getOption("profile.max_size", v2_schema()$limits$max_size)
}

# The memory a read may use, in bytes: the option `profile.max_memory`, else the
# core's default (4 GiB; see ?profile_error). Inf means no limit but the
# address space.
default_max_memory <- function(call = rlang::caller_env()) {
  max_memory <- getOption("profile.max_memory", v2_schema()$limits$max_memory)
  if (!is.numeric(max_memory) || length(max_memory) != 1L || is.na(max_memory) || max_memory < 0) {
    abort_argument(
      "The option {.code profile.max_memory} must be a non-negative number of bytes.",
      call = call
    )
  }
  min(as.double(max_memory), 2^62)
}

# One of `values`: the first when `arg` is left at its default (the whole vector),
# as match.arg() and rlang::arg_match() do; an error of class
# profile_error_argument otherwise.
check_choice <- function(arg, values, arg_name, call = rlang::caller_env()) {
  if (identical(arg, values)) {
    return(values[[1L]])
  }
  if (!rlang::is_string(arg) || !arg %in% values) {
    abort_argument("{.arg {arg_name}} must be one of {.val {values}}.",
      arg_name = arg_name, values = values, call = call
    )
  }
  arg
}
