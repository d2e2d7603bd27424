#' Look at a profile in the browser
#'
#' `profile_view()` shows a profile as an interactive flame graph: the stacks of
#' all samples merged into a tree, frames grouped by function name as in
#' [profile_summary()], the root at the top (as `go tool pprof -http` and
#' speedscope draw it) and callees below their callers, siblings in byte order
#' of their names. A frame's width is proportional to its total value.
#'
#' - Click a frame to zoom to it; "Reset zoom" goes back.
#' - The search box highlights the frames whose function name matches a regular
#'   expression (or contains the text, when it is not one) and reports their
#'   share of the total.
#' - Hovering over a frame shows its name, `file:line` (the line when all its
#'   samples are at one), its total and self value with the unit and percent of
#'   the total.
#' - A menu switches between the profile's sample types (gauges such as
#'   `small_vector_heap` are left out: their values cannot be added up). The
#'   type shown first is `type`, else the one `go tool pprof` shows (see
#'   [profile_summary()]).
#' - When samples have a time (`samples$time`, as Rprof profiles do), "Time
#'   order" shows a flame chart: the samples in the order they were taken, from
#'   left to right, consecutive samples with the same frame at a depth merged
#'   into one block, so that the order of events is visible (as in profvis).
#'   Widths are the samples' values; each source is drawn after the previous.
#' - A diff profile (made by `profile_diff()`: the base's samples have negated
#'   values, and `sources$diff_base` marks the base's sources) is drawn with
#'   both sides: a frame's width is the profile's value plus the base's, its
#'   colour red where the profile has more than the base (growth) and blue where
#'   it has less (shrinkage), the stronger the larger the difference. The
#'   tooltip gives the difference, with percents of the base's total.
#'
#' The view's data (the merged call tree with the values of every sample type,
#' and the samples in time order as runs of equal stacks) is computed in Rust
#' and sent as typed arrays, not as an object per frame, so that profiles of a
#' million samples open in about a second (`bench/README.md`). The JavaScript
#' libraries (d3 and d3-flame-graph) come with the package: the view needs no
#' network.
#'
#' @inheritParams profile_summary
#' @param ... These dots are for future extensions and must be empty.
#' @param file `NULL` (default) for an htmlwidget, which shows in the RStudio
#'   viewer, a browser, or a knitr or Quarto document; or a path: the view is
#'   written there as one self-contained HTML file (the libraries, styles and
#'   data inlined) that works offline.
#' @param title A title shown above the flame graph; by default the profile's
#'   source (when it has one).
#' @param width,height The size of the widget (CSS units or pixels), as for any
#'   htmlwidget.
#' @return An htmlwidget; with `file`, the path of the file, invisibly.
#' @seealso [write_speedscope()] for speedscope's viewer, [profile_flamegraph()]
#'   for a static flame graph.
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
#' path <- profile_view(x, file = tempfile(fileext = ".html"))
#' file.size(path)
#'
#' heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
#' profile_view(heap, type = "alloc_space", file = tempfile(fileext = ".html"))
#'
#' if (interactive()) {
#'   profile_view(x) # in the viewer
#'   utils::browseURL(path) # the file in a browser
#' }
profile_view <- function(x, type = NULL, ..., file = NULL, title = NULL,
                         width = NULL, height = NULL) {
  check_dots_empty_view(...)
  if (!is.null(file)) {
    file <- check_file_path(file)
  }
  if (!is.null(title) && !rlang::is_string(title)) {
    abort_argument("{.arg title} must be a single string or {.code NULL}.")
  }
  json <- with_profile_errors("invalid", "Can't prepare the view of {.arg x}.", {
    view_data(x, type, title)
  })
  if (!is.null(file)) {
    write_view_html(json, file, title)
    return(invisible(file))
  }
  rlang::check_installed("htmlwidgets", "to show the view as an htmlwidget (or use `file`)")
  check_view_libraries()
  htmlwidgets::createWidget(
    "profile_view",
    x = list(data = structure(json, class = "json")),
    width = width, height = height, package = "profile",
    sizingPolicy = htmlwidgets::sizingPolicy(
      defaultWidth = "100%", defaultHeight = 500, padding = 8,
      viewer.fill = TRUE, browser.fill = TRUE, knitr.figure = FALSE
    )
  )
}

check_dots_empty_view <- function(..., call = rlang::caller_env()) {
  if (...length() > 0L) {
    abort_argument(
      paste(
        "{.arg ...} must be empty; the options after it are named: {.arg file}, {.arg title},",
        "{.arg width}, {.arg height}."
      ),
      call = call
    )
  }
}

# The sample types a view or a speedscope file offers, with their units: the
# summable ones (not gauges) that come in one unit, declared types first.
view_types <- function(parts) {
  pairs <- value_types(parts$values)
  pairs <- pairs[!is.na(pairs$type), , drop = FALSE]
  declared <- unique(parts$declared_types[!is.na(parts$declared_types)])
  types <- unique(c(intersect(declared, pairs$type), pairs$type))
  types <- setdiff(types, v2_schema()$gauge_types)
  one_unit <- types[vapply(types, function(t) sum(pairs$type == t) == 1L, logical(1))]
  tibble::new_tibble(
    list(type = one_unit, unit = pairs$unit[match(one_unit, pairs$type)]),
    nrow = length(one_unit)
  )
}

# The columns the Rust binding gathers samples from (src/rust/src/view.rs):
# stack rows, locations, samples with their source and time, and the values of
# `types`.
sample_set_input <- function(parts, types) {
  samples <- parts$samples
  time <- samples[["time"]]
  list(
    sample_id = parts$stack$sample_id,
    depth = parts$stack$depth,
    location_id = parts$stack$location_id,
    locations = parts$locations$location_id,
    samples = samples$sample_id,
    sample_source = samples$source_id,
    # all NA (no time) is the same as none for the core
    sample_time = if (is.double(time)) time,
    value_sample_id = parts$values$sample_id,
    value_type = as.character(parts$values$type),
    value = parts$values$value,
    types = as.character(types$type),
    type_unit = as_valid_utf8(types$unit)
  )
}

# Which sources are the base of a diff (`sources$diff_base`, an extension column
# that profile_diff() writes).
diff_base_sources <- function(parts) {
  flag <- parts$sources[["diff_base"]]
  if (is.logical(flag)) flag %in% TRUE else rep(FALSE, nrow(parts$sources))
}

# The position (1-based) of the type to show first among `types`.
default_type_position <- function(parts, types, type) {
  chosen <- choose_sample_type(parts, type)
  position <- match(chosen$type, types$type)
  if (is.na(position)) {
    abort_argument("Sample type {.val {chosen$type}} comes in several units and can't be shown.",
      chosen = chosen
    )
  }
  position
}

# The JSON text of the view (made in Rust: src/rust/core/src/view.rs).
view_data <- function(x, type, title, call = rlang::caller_env()) {
  parts <- summary_parts(x, call = call)
  types <- view_types(parts)
  default_type <- if (nrow(types)) default_type_position(parts, types, type) else 1L
  frames <- location_frames(parts)
  keys <- keys_by_name(frames)
  if (is.null(title)) title <- view_title(parts)
  input <- c(sample_set_input(parts, types), list(
    location_key = keys$key,
    location_line = frames$line,
    n_keys = length(keys$labels),
    key_name = keys$labels,
    key_file = frames$filename[match(keys$labels, frames$name)],
    default_type = default_type,
    diff = any(diff_base_sources(parts)),
    title = as_valid_utf8(title)
  ))
  rust_value(ffi_profile_view_data(input), "Can't prepare the view.", call = call)
}

# The profile's source, or how many sources it combines.
view_title <- function(parts) {
  uri <- parts$sources$source_uri
  uri <- uri[!is.na(uri)]
  if (length(uri) == 1L) {
    basename(uri)
  } else if (length(uri) > 1L) {
    sprintf("%d sources", length(uri))
  } else {
    ""
  }
}

# The directory of the view's JavaScript and CSS in the installed package.
view_library_dir <- function() {
  system.file("htmlwidgets", "lib", package = "profile")
}

# The files the view inlines: third-party libraries (fetched by
# dev/vendor-js.sh when the package is built), then our own.
view_library_files <- function() {
  c(
    d3 = "d3/d3.min.js",
    flamegraph = "d3-flame-graph/d3-flamegraph.umd.min.js",
    view = "profile-view/profile-view.js",
    style = "profile-view/profile-view.css"
  )
}

check_view_libraries <- function(call = rlang::caller_env()) {
  paths <- file.path(view_library_dir(), view_library_files())
  missing <- view_library_files()[!file.exists(paths)]
  if (length(missing)) {
    abort_profile("unsupported", c(
      "The view's JavaScript libraries are missing from the installed package: {.file {missing}}.",
      i = paste(
        "A package built from a git checkout gets them from {.code bash dev/vendor-js.sh}",
        "(needs npm)."
      )
    ), missing = missing, call = call)
  }
  paths
}

# The text of a file, as UTF-8, with `</script` made harmless for an inline
# <script> element.
inline_text <- function(path) {
  text <- readChar(path, file.size(path), useBytes = TRUE)
  Encoding(text) <- "UTF-8"
  gsub("</script", "<\\/script", text, fixed = TRUE, useBytes = TRUE)
}

# One self-contained HTML file: the libraries, the styles and the data inlined,
# written to a temporary file beside `path` and renamed (so a failure leaves no
# half-written file).
write_view_html <- function(json, path, title, call = rlang::caller_env()) {
  files <- stats::setNames(check_view_libraries(call = call), names(view_library_files()))
  page_title <- if (is.null(title)) "profile" else title
  pieces <- c(
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<title>", html_escape(page_title), "</title>\n",
    "<style>\nhtml, body { margin: 0; height: 100%; }\n",
    "body > .profile-view { height: 100vh; padding: 8px; }\n",
    inline_text(files[["style"]]), "</style>\n</head>\n<body>\n",
    "<div class=\"profile-view\"></div>\n",
    "<script>\n", inline_text(files[["d3"]]), "\n</script>\n",
    "<script>\n", inline_text(files[["flamegraph"]]), "\n</script>\n",
    "<script>\n", inline_text(files[["view"]]), "\n</script>\n",
    "<script type=\"application/json\" class=\"profile-view-data\">", json, "</script>\n",
    "<script>\nProfileView.render(document.querySelector(\"body > .profile-view\"),\n",
    "  JSON.parse(document.querySelector(\"script.profile-view-data\").textContent));\n",
    "</script>\n</body>\n</html>\n"
  )
  write_text_atomic(enc2utf8(pieces), path, call = call)
}

html_escape <- function(text) {
  text <- gsub("&", "&amp;", text, fixed = TRUE)
  text <- gsub("<", "&lt;", text, fixed = TRUE)
  gsub(">", "&gt;", text, fixed = TRUE)
}

# Writes the UTF-8 strings `pieces` one after the other (their bytes as they
# are) to `path` with the core's atomic writer: a temporary file beside `path`,
# renamed once complete; a file it replaces keeps its permissions.
write_text_atomic <- function(pieces, path, call = rlang::caller_env()) {
  path <- native_path(path)
  res <- ffi_profile_write_text(pieces, path)
  rust_value(res, "Can't write {.file {path}}.", path = path, call = call)
  invisible(path)
}
