# write_speedscope(): speedscope's JSON file format, written by the core
# (src/rust/core/src/speedscope.rs) from the samples the browser view uses too.

#' Write a profile for speedscope
#'
#' `write_speedscope()` writes a profile in the JSON file format of
#' [speedscope](https://www.speedscope.app), an interactive viewer of profiles
#' (in the browser, or offline with its npm package). The file holds one
#' "sampled" profile per sample type and source (speedscope's menu switches
#' between them; the sources of a recording of parallel code, one per process,
#' are named by the process, such as "worker process 4242"; the one shown
#' first is of the type `go tool pprof` shows, see
#' [profile_summary()]), with frames shared by all of them: one per distinct
#' function, file and line, with their file and line.
#'
#' Samples of a source that all have a time (`samples$time`, as Rprof profiles
#' do) are written in time order, so that speedscope's "Time Order" view shows
#' the order of events; consecutive samples with the same stack are written as
#' one sample with their values added. Other samples with the same stack are
#' added up (their order means nothing). Samples whose value is 0 are left out,
#' and gauges (such as `small_vector_heap`) are not written: their values cannot
#' be added up. speedscope draws no negative weights, so the base of a diff
#' profile (see [profile_view()]) is written as it was before its values were
#' negated, in profiles whose names say "diff base". A database-backed profile
#' (see [profile_db_append()]) is read from its database grouped by source,
#' time and stack.
#'
#' @inheritParams profile_summary
#' @param path The file to write (replaced atomically: a failure leaves no
#'   half-written file).
#' @return `x`, invisibly.
#' @seealso [profile_view()] shows a profile in the browser without speedscope.
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/memory.out", package = "profile"))
#' path <- tempfile(fileext = ".speedscope.json")
#' write_speedscope(x, path)
#' substr(readLines(path, warn = FALSE), 1, 200)
write_speedscope <- function(x, path) {
  message <- "Can't write {.arg x} as a speedscope file to {.file {path}}."
  with_profile_errors("invalid", message, path = path, {
    path <- check_file_path(path)
    parts <- summary_parts(x)
    types <- view_types(parts)
    default_type <- if (nrow(types)) default_type_position(parts, types, NULL) else 1L
    parts <- db_samples_in_memory(parts, types)
    frames <- location_frames(parts)
    distinct <- vctrs::vec_unique(frames[c("name", "filename", "line")])
    sources <- parts$sources
    input <- c(sample_set_input(parts, types), list(
      location_frame = vctrs::vec_match(frames[c("name", "filename", "line")], distinct),
      frame_name = distinct$name,
      frame_file = distinct$filename,
      frame_line = distinct$line,
      default_type = default_type,
      source_id = sources$source_id,
      source_name = source_names(sources),
      source_is_base = diff_base_sources(parts),
      name = view_title(parts),
      exporter = paste("R package profile", utils::packageVersion("profile"))
    ))
    rust_value(
      ffi_profile_write_speedscope(input, native_path(path)),
      "Can't write a speedscope file to {.file {path}}.",
      path = path
    )
  })
  invisible(x)
}

# What a source's profiles are called: the file it was read from, else its id;
# the process of a recording of parallel code ("main process 123" or "worker
# process 456", after the file's name when there is one).
# (sprintf() and indexing, not paste() and ifelse(), which make no sources
# one name or a logical vector)
source_names <- function(sources) {
  uri <- as.character(as_valid_utf8(sources$source_uri))
  name <- sprintf("source %s", sources$source_id)
  name[!is.na(uri)] <- basename(uri[!is.na(uri)])
  column <- function(col) {
    if (is.null(sources[[col]])) rep(NA, length(name)) else sources[[col]]
  }
  pid <- as.integer(column("process_id"))
  role <- as.character(column("process_role"))
  process <- sprintf("%s process %s", ifelse(is.na(role), "R", role), pid)
  has <- which(!is.na(pid))
  name[has] <- ifelse(is.na(uri[has]), process[has], paste0(basename(uri[has]), ", ", process[has]))
  name
}
