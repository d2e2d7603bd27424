# The text of the package's errors, built once.
#
# Messages are cli templates. cli::cli_abort() fills a template's fields and
# leaves the bullets and the wrapping to conditionMessage(), which formats them
# through cli at every call, and R calls it as it signals the error: two rounds
# of cli's formatting, several milliseconds each, for one refused file. Here
# the fields are filled and the text is made once, as cli would make them, and
# the condition keeps the text for conditionMessage() (see
# conditionMessage.profile_error() in R/errors.R). Templates of the shapes the
# readers' errors have are filled in plain R (plain_condition_text()), the
# others through cli (cli_condition_text()); test-condition-text.R holds the
# two to cli::cli_abort() itself. (cli::cli_warn() formats a warning's text
# once already: warnings keep it.)

# An error's message from the cli template `message` (a character vector: the
# header, then bullets named `x`, `i`, ...) whose fields are taken from the
# list `values`: `inline`, the template with its fields filled (what
# cli::cli_abort() passes to rlang::abort()), and `text`, what
# conditionMessage() gives for cli::cli_abort(message, .envir = values).
condition_text <- function(message, values) {
  plain <- plain_condition_text(message, values)
  if (is.null(plain)) cli_condition_text(message, values) else plain
}

# What cli::cli_abort() and conditionMessage() do together: each element filled
# by cli::format_inline(), then the bullets formatted by cli::format_error()
# (braces escaped, so that filled-in text is not read as a template again).
cli_condition_text <- function(message, values) {
  env <- list2env(values, parent = baseenv())
  inline <- vapply(message, cli::format_inline, character(1), .envir = env, USE.NAMES = FALSE)
  names(inline) <- names(message)
  escaped <- gsub("}", "}}", gsub("{", "{{", inline, fixed = TRUE), fixed = TRUE)
  list(inline = inline, text = as.character(cli::format_error(escaped, .envir = emptyenv())))
}

# The bullets of cli's condition theme, by name, with the symbol each starts with.
condition_bullets <- function() {
  list(
    x = cli::symbol$cross, i = cli::symbol$info, v = cli::symbol$tick,
    "*" = cli::symbol$bullet, ">" = cli::symbol$arrow_right, "!" = "!"
  )
}

# What cli_condition_text() gives, made in plain R, or NULL where this does not know
# cli's answer: while the console shows colours or links, where a template has
# fields other than those plain_field() knows, or values other than plain
# strings. The steps are cli's: fields filled as cli::format_inline() fills
# them, a bullet's symbol joined to its first word by a no-break space, the
# text wrapped by cli::ansi_strwrap() (bullets indented by 2), the header
# wrapped with "Error: " before it, which is then taken off.
plain_condition_text <- function(message, values) {
  bullets <- plain_bullets(message)
  if (is.null(bullets)) {
    return(NULL)
  }
  width <- condition_width()
  inline <- character(length(message))
  lines <- character(length(message))
  for (i in seq_along(message)) {
    text <- plain_inline(message[[i]], values)
    if (is.null(text)) {
      return(NULL)
    }
    inline[[i]] <- text
    if (i == 1L) text <- paste0("Error: ", text)
    exdent <- if (nzchar(bullets[[i]])) 2L else 0L
    lines[[i]] <- wrap_condition_line(paste0(bullets[[i]], text), width, exdent)
  }
  text <- gsub("\u00a0", " ", paste(lines, collapse = "\n"), fixed = TRUE)
  names(inline) <- names(message)
  list(inline = inline, text = sub("Error:[ ]?", "", text))
}

# What each element of `message` starts with (a bullet's symbol and a no-break
# space, or nothing), or NULL where cli would make more of it: colours or
# links, Unicode bullets chosen by option, a header with a bullet, a bullet
# without a symbol (such as " ", which indents).
plain_bullets <- function(message) {
  if (!plain_output(message)) {
    return(NULL)
  }
  names <- names(message)
  if (is.null(names)) {
    names <- character(length(message))
  }
  symbols <- condition_bullets()
  if (!length(message) || nzchar(names[[1]]) || !all(names %in% c("", names(symbols)))) {
    return(NULL)
  }
  starts <- character(length(names))
  for (i in which(nzchar(names))) {
    starts[[i]] <- paste0(symbols[[names[[i]]]], "\u00a0")
  }
  starts
}

# Whether cli would write `message` as plain text: no colours, no links (of
# files and functions), its own choice of bullets.
plain_output <- function(message) {
  if (cli::num_ansi_colors() > 1L || !is.null(getOption("cli.condition_unicode_bullets"))) {
    return(FALSE)
  }
  links <- any(grepl("{.file ", message, fixed = TRUE) | grepl("{.fn ", message, fixed = TRUE))
  !links || !cli::ansi_has_hyperlink_support()
}

# `text` wrapped as cli wraps it, as one string. A line that is shorter than
# `width`, with single spaces only and none at its ends, stays as it is.
# Text of Latin-1 characters and the bullets' symbols, which are never wide,
# is wrapped by cli::ansi_strwrap()'s steps for text without colours: its
# paragraphs trimmed, runs of white space made one space (two after the end
# of a sentence), then base::strwrap(); other text by cli::ansi_strwrap()
# itself, which also corrects the width R gives some wide characters.
wrap_condition_line <- function(text, width, exdent) {
  fits <- nchar(text, type = "width") < width
  if (fits && !grepl("^\\s|\\s$|\\s\\s|[^ \\S]", text, perl = TRUE)) {
    return(text)
  }
  not_wide <- "^[\t\n\u0020-\u007e\u00a0-\u00ff\u2716\u2139\u2714\u2022\u2192]*$"
  if (!grepl(not_wide, text, perl = TRUE)) {
    wrapped <- cli::ansi_strwrap(text, width = width, exdent = exdent)
    return(paste(as.character(wrapped), collapse = "\n"))
  }
  paragraphs <- trimws(strsplit(text, "\n[ \t\n]*\n", perl = TRUE)[[1]])
  paragraphs <- gsub("(?<![.!?])[ \t\n][ \t\n]*", " ", paragraphs, perl = TRUE)
  paragraphs <- gsub("(?<=[.!?])[ \t\n][ \t\n][ \t\n]*", "  ", paragraphs, perl = TRUE)
  paragraphs <- gsub("(?<=[.!?])[ \t\n]", " ", paragraphs, perl = TRUE)
  wrapped <- strwrap(paste(paragraphs, collapse = "\n\n"), width = width, exdent = exdent)
  paste(wrapped, collapse = "\n")
}

# The width cli wraps a condition's text to (its option
# `cli.condition_width`, else its console width).
condition_width <- function() {
  width <- getOption("cli.condition_width")
  if (is.null(width)) {
    return(cli::console_width())
  }
  old <- options(cli.width = width)
  on.exit(options(old))
  cli::console_width()
}

# One element of a template with its fields filled as cli::format_inline()
# fills them, or NULL if it has a field plain_field() does not know.
plain_inline <- function(template, values) {
  at <- gregexpr("\\{[^{}]*(\\{[^{}]*\\})?[^{}]*\\}", template, perl = TRUE)[[1]]
  if (at[[1]] == -1L) {
    if (grepl("[{}]", template)) {
      return(NULL)
    }
    return(gsub("\u00a0", " ", template, fixed = TRUE))
  }
  ends <- at + attr(at, "match.length") - 1L
  fields <- substring(template, at, ends)
  between <- substring(template, c(1L, ends + 1L), c(at - 1L, nchar(template)))
  # (an escaped brace, `{{`, is left in `between` or makes an unknown field)
  if (any(grepl("[{}]", between))) {
    return(NULL)
  }
  filled <- character(length(fields))
  for (j in seq_along(fields)) {
    field <- plain_field(fields[[j]], values)
    if (is.null(field)) {
      return(NULL)
    }
    filled[[j]] <- field
  }
  gsub("\u00a0", " ", paste(c(rbind(between, c(filled, ""))), collapse = ""), fixed = TRUE)
}

# One field: `{name}`, `{.style {name}}` or `{.style text}`, where `name` is a
# plain string among `values` and the style one of those the package's readers
# use; NULL for any other.
plain_field <- function(field, values) {
  # (regexpr(), not regexec(), which costs more with perl = TRUE)
  identifier <- "([A-Za-z_][A-Za-z0-9_]*)"
  at <- regexpr(
    paste0("^\\{(?:", identifier, "|\\.([a-z]+) \\{", identifier, "\\}|\\.([a-z]+) ([^{}`]+))\\}$"),
    field,
    perl = TRUE
  )
  if (at == -1L) {
    # an R expression ({if (x) "a" else "b"}, {cli::qty(n)}) or an escaped brace
    return(NULL)
  }
  from <- attr(at, "capture.start")
  parts <- c(field, substring(field, from, from + attr(at, "capture.length") - 1L))
  name <- paste0(parts[[2]], parts[[4]])
  if (nzchar(name)) {
    style <- parts[[3]]
    value <- values[[name]]
    if (!is_plain_string(value) || !style %in% c("", "file", "val", "field", "arg", "code")) {
      return(NULL)
    }
    # cli writes each newline of a value as a space
    value <- gsub("\n", " ", value, fixed = TRUE)
  } else {
    style <- parts[[5]]
    value <- parts[[6]]
    if (!style %in% c("arg", "code", "field", "fn", "cls")) {
      return(NULL)
    }
  }
  switch(style,
    file = paste0("'", value, "'"),
    val = encodeString(value, quote = "\""),
    arg = ,
    code = cli_backticks(value, ""),
    fn = cli_backticks(value, "()"),
    cls = paste0("<", value, ">"),
    value
  )
}

# `text` between backticks as cli puts it there, with `after` inside them
# (cli puts text with a backtick between double ones).
cli_backticks <- function(text, after) {
  if (grepl("`", text, fixed = TRUE)) {
    return(paste0("`` ", text, " ", after, "``"))
  }
  paste0("`", text, after, "`")
}

# Whether `x` is one string, not NA, without the control characters (other
# than newline and tab) that cli's wrapping treats in ways of its own.
is_plain_string <- function(x) {
  is.character(x) && length(x) == 1L && !is.na(x) &&
    !grepl("[\001-\010\013-\037\177]", x, perl = TRUE)
}
