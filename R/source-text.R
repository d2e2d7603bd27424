# Source text: the lines of the source files that a profile's frames name,
# kept in the extension table `source_lines` (see ?profile_v2) while the files
# exist, so that the source panel of profile_view() can show them later. The
# readers (read_rprof(), read_pprof()) and profile_record() add it; the Rust
# core reads the files (src/rust/core/src/source_text.rs: regular files with a
# source-code extension, within the limits below).

# The most bytes of one file, and of all files of a profile, that are kept.
source_text_limits <- function() {
  list(file_bytes = 2^20, total_bytes = 16 * 2^20)
}

# Whether a file name is absolute (then it is read as it is).
is_absolute_path <- function(path) {
  grepl("^(/|~|[A-Za-z]:[/\\\\]|\\\\\\\\)", path)
}

# The rows of `source_lines` for the files `filenames` (those that can be
# read), as lines of the source `source_id`. Relative names are looked up in
# the directory `source_text` (TRUE: the working directory). `known` holds
# rows already known (profile_record()'s expression), which take precedence.
read_source_lines <- function(filenames, source_id, source_text, known = NULL,
                              call = rlang::caller_env()) {
  files <- unique(filenames[!is.na(filenames) & nzchar(filenames)])
  files <- setdiff(files, known$filename)
  rows <- empty_source_lines()
  if (!isFALSE(source_text) && length(files) && length(source_id)) {
    dir <- if (isTRUE(source_text)) getwd() else source_text
    paths <- ifelse(is_absolute_path(files), files, file.path(dir, files))
    limits <- source_text_limits()
    got <- rust_value(
      ffi_source_text(enc2native(native_path(paths)), limits$file_bytes, limits$total_bytes),
      "Can't read the source files of the profile.",
      call = call
    )
    n <- length(got$line)
    rows <- tibble::new_tibble(list(
      source_id = rep(as.integer(source_id), n),
      filename = files[got$file],
      line = got$line,
      text = got$text
    ), nrow = n)
  }
  if (!is.null(known)) {
    rows <- vctrs::vec_rbind(known, rows)
  }
  rows
}

empty_source_lines <- function() {
  tibble::new_tibble(
    list(source_id = integer(), filename = character(), line = integer(), text = character()),
    nrow = 0L
  )
}

# The tables of a profile just read with its `source_lines`: the lines of the
# files its functions name, as lines of its first source.
with_source_lines <- function(tables, source_text, known = NULL, call = rlang::caller_env()) {
  source_id <- utils::head(tables$sources$source_id, 1L)
  tables$source_lines <- read_source_lines(
    tables$functions$filename, source_id, source_text,
    known = known, call = call
  )
  tables
}

# Per file name: the text of its lines as a character vector (line i is
# element i; "" for lines the table lacks), from the first source that has
# the file; NULL for files without text. At most `max_chars` characters in all:
# the files after that get NULL.
source_text_of_files <- function(source_lines, files, max_chars = 8e6) {
  out <- vector("list", length(files))
  if (is.null(source_lines) || !nrow(source_lines) || !length(files)) {
    return(out)
  }
  rows <- source_lines[source_lines$filename %in% files, , drop = FALSE]
  first_source <- tapply(rows$source_id, rows$filename, min)
  rows <- rows[rows$source_id == first_source[rows$filename] & !is.na(rows$line) & rows$line > 0L, ,
    drop = FALSE
  ]
  used <- 0
  for (i in seq_along(files)) {
    of_file <- rows[rows$filename == files[[i]], , drop = FALSE]
    if (!nrow(of_file)) next
    text <- rep("", max(of_file$line))
    text[of_file$line] <- as_valid_utf8(of_file$text)
    used <- used + sum(nchar(text, type = "bytes"))
    if (used > max_chars) break
    out[[i]] <- text
  }
  out
}
