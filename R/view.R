#' Look at a profile in the browser
#'
#' `profile_view()` shows a profile in the browser (the RStudio viewer, a web
#' browser, or a knitr or Quarto document), or writes the view as one
#' self-contained HTML file that works offline. The view has five parts,
#' which share the sample type shown, the search and the function selected:
#'
#' - **Flame graph**: the stacks of all samples merged into a tree, frames
#'   grouped by function name as in [profile_summary()], the root at the top
#'   (as `go tool pprof -http` and speedscope draw it) and callees below their
#'   callers, siblings in byte order of their names. A frame's width is its
#'   total value. Click a frame to zoom to it (its ancestors are drawn faded);
#'   "Reset zoom" goes back. In this view and the time order, the mouse wheel
#'   zooms in and out around the pointer and dragging pans; a double click
#'   zooms to a frame. Keys: `/` to search, `Esc` to clear the search and the
#'   selection, `Backspace` and `Shift+Backspace` (or the toolbar's arrows) to
#'   step back and forward through the zooms, the arrow keys to move the zoom
#'   to the frame's caller, its widest callee or the frame beside it.
#'
#' The page's address keeps the view's state in its fragment (the view
#' shown, the sample type, the selected function, the range in view, the
#' search, the refinements and the source shown alone): the same file opened with the same link, or
#' with "Copy link", shows the same view. "Export" downloads the flame graph
#' or time order shown as SVG or PNG, the Top table as CSV (name, file,
#' flat and cum of every function, in the sample type's unit), and the
#' Sandwich of the selected function as CSV (part, name, value).
#' - **Time order**, when samples have a time (`samples$time`, as Rprof
#'   profiles do): a flame chart of the samples in the order they were taken,
#'   from left to right on an axis of seconds (each sample as long as its
#'   source's sampling interval), consecutive samples with the same frame at a
#'   depth merged into one block, so that the order of events shows (as in
#'   profvis). A profile without times (a pprof file keeps none) says so
#'   there. A profile of several sources with times (the processes of a
#'   parallel recording, recordings combined with [combine_profiles()]) has
#'   one *lane* per source, one below the other, each headed by a block that
#'   names the source (its process, where `sources` has the columns
#'   `process_role` and `process_id` and the sources are of several processes,
#'   then its `source_label`, else its file's name) and spans its run: the lanes
#'   share one wall-clock axis, each starting at its source's start time
#'   (`source_timestamp`) after the earliest one, so that a process that started
#'   later is drawn later and a stretch without samples (a process waiting,
#'   between recordings) is empty; a lane is as long as its samples or its
#'   `duration_nanos`, whichever is longer. Rprof's timer counts a process's CPU
#'   time, and Rprof samples are drawn one interval after another from their
#'   source's start, with one exception: the main process of a recording of
#'   parallel code ([profile_record()]), whose waits (the table `waits`:
#'   stretches of wall-clock time in which it used no CPU time, watched while
#'   it recorded) are drawn where they happened, as grey blocks labelled
#'   "waiting for workers" (when another process of the profile ran a task or
#'   recorded meanwhile; the tooltip names them) or "waiting", its samples
#'   placed around them: a sample after a wait at the wait's end plus the CPU
#'   time from the wait's start to the sample. The waits' wall-clock positions
#'   are exact to within the watch's readings every 5 ms (a reading late on a
#'   busy machine can move an edge by up to its delay; during a wait the watch
#'   reads less often, up to every 50 ms, and places the wait's end by the CPU
#'   time used after it, which is exact when the process worked from then on
#'   until the reading); the samples' positions
#'   between two waits are approximate (CPU time read as wall-clock time, so
#'   that a process ready to run but not running on a busy machine is drawn
#'   shorter than it was; R's profiler may take fewer ticks than the CPU time
#'   used, so that a sample next to a wait may fall on its other side). A
#'   block of the time order ends at a wait: the frames after it are blocks of
#'   their own, even where the process's stack was the same. In the other
#'   sources the time a process spent waiting (a worker between its tasks, a
#'   recording of [Sys.sleep()]) shows as the empty end of its lane, not where
#'   it happened. Samples with their own times (OpenTelemetry profiles) are
#'   drawn at them; a gap of more than one and a half sampling intervals ends
#'   a block. Sources without a start time are drawn after those with one, one
#'   after the other. Sources without times (an `Rprofmem()` source of
#'   `profile_record(allocations = TRUE)`) have no lane.
#'
#' A profile of several sources has a source menu in the toolbar: "All
#' sources", or one source alone, whose samples the flame graph, the time
#' order (its lane), Top and the Sandwich then show (Top's numbers are those
#' of [profile_summary()] of that source, as [dm::dm_filter()] on `sources`
#' gives it); the refinements apply to it, and the link keeps it.
#' - **Top**: a table of the functions as `go tool pprof -top` prints it:
#'   *flat* (self) and *cum* (total, once per sample) with their percentages
#'   and *sum%* (the flat% of the row and those above), the numbers of
#'   [profile_summary()]. Click a column's head to sort by it.
#' - **Sandwich** (speedscope's name; `go tool pprof`'s Peek): the callers
#'   and the callees of the selected function, each as a flame graph with the
#'   function at its root (the callers above it, upside down; its callees
#'   below it), and a table of its direct callers and callees with their
#'   values. The stacks taken are those of the function's outermost call in
#'   each sample, so a recursive function counts once per sample, as its
#'   total does.
#' - **Source**, beside the others, for profiles with line information (Rprof
#'   recorded with `line.profiling = TRUE`, pprof with line numbers): the
#'   lines of a file with their self and total values (*self*: samples whose
#'   innermost frame with a line was there; *total*: samples with a frame at
#'   the line, once per sample; the numbers of `profile_summary(by = "line")`
#'   and of `utils::summaryRprof(lines = "show")`), the three hottest lines
#'   marked. For Rprof memory profiles two more columns, as profvis shows
#'   them: *allocated* and *released*, how much R's vector heaps (the gauges
#'   `small_vector_heap` plus `large_vector_heap`) grew and shrank between a
#'   tick and the previous tick of the same source that had a stack, summed
#'   over the ticks whose stack holds the line (once per frame at the line,
#'   so a recursive line counts at each depth, as in profvis; the first tick
#'   counts 0). These are heap changes between ticks, not allocations: a tick
#'   is credited with whatever ran since the one before, and memory freed by
#'   the garbage collector shows as released where the collection happened. For a
#'   recording with R's allocation profiler ([profile_record()] with
#'   `allocations = TRUE`: a source of type `"rprofmem"`), whose stacks have
#'   function names but no lines, the panel lists above the lines the
#'   functions of the file shown with their exact bytes (`alloc_space`, self
#'   and total, as [profile_summary()] and the Top table give them); when the
#'   type shown has no lines (`alloc_space`), the lines show the type the view
#'   opened at, and say so. The text of the code comes from the
#'   table `source_lines` (see [profile_v2]), which [read_rprof()],
#'   [read_pprof()] and [profile_record()] fill while the files exist;
#'   without it the panel shows the line numbers and values only. Its menu
#'   lists the files with values, the program's own before those of the
#'   runtime, the standard library and packages (told apart by their paths),
#'   each group the hottest first (by the largest total of a line); the panel
#'   opens on the program's hottest file. A splitter resizes the panel (the
#'   browser and the link remember its width); long lines wrap, or scroll in
#'   the panel. A frame's tooltip shows its file and line.
#'
#' Selecting a function (a click on a frame, a row of the table, or a caller
#' or callee) selects it everywhere: its frames are outlined, the sandwich
#' shows it, and the source panel shows its line (of the frame clicked, or
#' its hottest one). A click on a line of the source panel highlights the
#' frames that ran it and dims the others; a second click clears it.
#'
#' The search box highlights the frames whose function name matches a
#' regular expression (Go's, as the verbs take; or contains the text, when it
#' is not one) and reports their share of the total.
#'
#' **Refine**: the menu beside the search box applies a verb to the pattern
#' typed, and a frame's context menu (right click) to its function: focus on,
#' ignore, hide, show only, or prune below, as [profile_focus()],
#' [profile_ignore()], [profile_hide()], [profile_show()] and
#' [profile_prune_from()] do (see [profile_focus()] for the patterns). Every
#' view shows the refined profile; the refinements are listed as chips, each
#' removable, and "R code" shows the verbs that give the same profile in R.
#' The view groups frames by function name, so a file or `"file:line"`
#' pattern that matches some frames of a function in a stack and not others
#' is applied to all of them: its chip is marked approximate (the R code
#' gives the exact profile). The source panel keeps the whole profile's
#' line values, and says so. Hovering over a frame shows its name, `file:line`
#' (the line when all its samples are at one), its total and self value with
#' the unit and percent of the total. Values are shown in their unit: time
#' units (`nanoseconds`, `seconds`, ...) as s, ms, µs or ns, `bytes` in
#' binary units (KiB, MiB, GiB), counts as numbers.
#'
#' A menu switches between the profile's sample types (gauges such as
#' `small_vector_heap` are left out: their values cannot be added up; so is a
#' type that comes in several units, as `cpu` in nanoseconds and in counts in
#' a combination of a Go and a Java profile). The type shown first is `type`,
#' else the one `go tool pprof` shows (see [profile_summary()]), else, when
#' that one is left out, the first of the menu.
#'
#' A diff profile (made by [profile_diff()]: the base's samples have negated
#' values, and `sources$diff_base` marks the base's sources) is drawn with
#' both sides: a frame's width is the profile's value plus the base's, its
#' colour red where the profile has more than the base (growth) and blue where
#' it has less (shrinkage), the stronger the larger the difference. The
#' tooltip and the table give the difference, with percents of the base's
#' total.
#'
#' **Compared with a base**: `profile_view(x, base = base)` draws the flame
#' graphs of `x` (its frames, their widths `x`'s values) and colours each
#' frame by its function's change in [profile_compare()]`(x, base, by =
#' "function")`: reds for a significant increase, blues for a significant
#' decrease (the deeper, the larger the ratio of `x` to `base`), grey for a
#' change that is not significant (and for functions with no self value in
#' any run, such as callers only). A legend says what was compared. The
#' comparison's table is beside the view: every row of [profile_compare()]
#' (name, the means per run of base and x, the difference, the ratio, the
#' interval and the change), functions only in `base` too, in its order or
#' sorted by a column; a click on a row selects the function, whose frames
#' are outlined. The colours are of the compared sample type (`type`, by
#' default [profile_compare()]'s), the one the view opens at; the
#' comparison is computed in R, once, and sent with the view's data.
#'
#' The view's data (the merged call tree with the values of every sample type,
#' the values of each source line, and the samples in time order as runs of
#' equal stacks) is computed in Rust and sent as typed arrays, not as an
#' object per frame, so that profiles of a million samples open in well under
#' a second (`bench/README.md`). The view is drawn on a canvas by the
#' package's own JavaScript (no third-party library): it needs no network and
#' nothing beyond R to install. A database-backed profile (see
#' [profile_db_append()]) is read from its database grouped by source, time
#' and stack, so that its samples are not read one by one.
#'
#' @inheritParams profile_summary
#' @param ... These dots are for future extensions and must be empty.
#' @param base `NULL` (default), or a profile whose runs `x` is compared with
#'   ([profile_compare()], by function, of `type`): the frames are coloured by
#'   their function's change, and the comparison's table is shown beside the
#'   view. Each source of `x` and of `base` is a run.
#' @param level,threshold With `base`: the confidence level and the smallest
#'   relative change marked, as in [profile_compare()].
#' @param file `NULL` (default) for an htmlwidget, which shows in the RStudio
#'   viewer, a browser, or a knitr or Quarto document; or a path: the view is
#'   written there as one self-contained HTML file (scripts, styles and data
#'   inlined) that works offline.
#' @param title A title shown above the views; by default the profile's
#'   source (when it has one).
#' @param width,height The size of the widget (CSS units or pixels), as for any
#'   htmlwidget.
#' @return An htmlwidget; with `file`, the path of the file, invisibly.
#' @seealso [profile_record()] to record code and look at it as profvis does;
#'   [write_speedscope()] for speedscope's viewer; [profile_flamegraph()] for
#'   a static flame graph.
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
#' path <- profile_view(x, file = tempfile(fileext = ".html"))
#' file.size(path)
#'
#' heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
#' profile_view(heap, type = "alloc_space", file = tempfile(fileext = ".html"))
#'
#' # Record code and look at it, with its lines (as profvis does)
#' slow <- function(n) {
#'   v <- c()
#'   for (i in seq_len(n)) v <- c(v, i)
#'   v
#' }
#' rec <- profile_record(slow(3e4))
#' profile_view(rec, file = tempfile(fileext = ".html"))
#'
#' # Runs compared with the runs of a base: frames coloured by their
#' # function's change, the comparison's table beside them
#' rprof <- function(f) read_rprof(system.file("samples/rprof", f, package = "profile"))
#' before <- combine_profiles(rprof("1.out"), rprof("all.out"), rprof("line.out"))
#' after <- combine_profiles(rprof("1.out"), rprof("1.out"), rprof("all.out"))
#' profile_view(after, base = before, file = tempfile(fileext = ".html"))
#'
#' if (interactive()) {
#'   profile_view(x) # in the viewer
#'   utils::browseURL(path) # the file in a browser
#' }
profile_view <- function(x, type = NULL, ..., base = NULL, level = 0.95, threshold = 0,
                         file = NULL, title = NULL, width = NULL, height = NULL) {
  check_dots_empty_view(...)
  if (!is.null(file)) {
    file <- check_file_path(file)
  }
  if (!is.null(title) && !rlang::is_string(title)) {
    abort_argument("{.arg title} must be a single string or {.code NULL}.")
  }
  # (first: its errors are profile_compare()'s, about x and base)
  cmp <- if (!is.null(base)) view_comparison(x, base, type, level, threshold)
  json <- with_profile_errors("invalid", "Can't prepare the view of {.arg x}.", {
    if (is.null(cmp)) {
      view_data(x, type, title)
    } else {
      with_comparison(view_data(x, attr(cmp, "sample_type"), title), cmp)
    }
  })
  if (!is.null(file)) {
    write_view_html(json, file, title)
    return(invisible(file))
  }
  rlang::check_installed("htmlwidgets", "to show the view as an htmlwidget (or use `file`)")
  view_library_paths()
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
        "{.arg ...} must be empty; the options after it are named: {.arg base}, {.arg level},",
        "{.arg threshold}, {.arg file}, {.arg title}, {.arg width}, {.arg height}."
      ),
      call = call
    )
  }
}

# The sample types a view or a speedscope file offers, with their units: the
# summable ones (not gauges) that come in one unit, declared types first.
view_types <- function(parts) {
  pairs <- parts$types
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
# stack rows, locations, samples with their source and time (only the samples
# in `samples` count), and the values of `types`; a derived type among them
# (`time` of Rprof ticks, see derived_time_type()) is made from the type it
# comes from, which is then gathered too.
sample_set_input <- function(parts, types) {
  samples <- parts$samples
  time <- samples[["time"]]
  derived <- parts$derived
  if (is.null(derived) || !derived$type %in% types$type || !derived$from %in% types$type) {
    derived <- NULL
  }
  list(
    derived_type = derived$type,
    derived_from = derived$from,
    derived_source = if (!is.null(derived)) as.integer(derived$source_id),
    derived_factor = if (!is.null(derived)) as.double(derived$factor),
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

# The position (1-based) of the type to show first among `types`. When no
# type is asked for and the default comes in several units (profiles of
# different producers combined), the first type that can be shown: the menu
# offers the others.
default_type_position <- function(parts, types, type) {
  if (is.null(type)) {
    chosen <- tryCatch(choose_sample_type(parts), profile_error_unsupported = function(e) NULL)
    position <- match(chosen$type, types$type)
    return(if (length(position) && !is.na(position)) position else 1L)
  }
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
  # (before the samples of a database are read, grouped, as samples)
  frames <- location_frames(parts)
  lines <- view_lines(parts, frames)
  heap_lines <- view_heap_lines(parts, frames, lines$location_line_key, lines$n_line_keys,
    call = call
  )
  parts <- db_samples_in_memory(parts, types, call = call)
  waits <- profile_waits(x)
  parts$samples <- place_around_waits(parts$samples, parts$sources, waits)
  keys <- keys_by_name(frames)
  if (is.null(title)) title <- view_title(parts)
  input <- c(sample_set_input(parts, types), lines, list(
    location_key = keys$key,
    location_line = frames$line,
    n_keys = length(keys$labels),
    key_name = keys$labels,
    key_file = defining_files(parts$stack, frames, call)[match(keys$labels, frames$name)],
    default_type = default_type,
    diff = any(diff_base_sources(parts)),
    title = as_valid_utf8(title)
  ), view_sources(parts$sources))
  json <- rust_value(ffi_profile_view_data(input), "Can't prepare the view.", call = call)
  tasks <- if (inherits(x, "dm")) dm::dm_get_tables(x, keyed = FALSE)[["tasks"]]
  with_source_memory(json, heap_lines, has_rprofmem_source(parts),
    waits = view_waits_json(waits, parts$sources, tasks), call = call
  )
}

# The file each frame's function is defined in, one per frame of `frames`
# (the view's Top table shows one file per function name), "" where none is
# known: the file most of the name's frames have, leaving out a frame whose
# file and line are its caller's under another name (R's profiler writes the
# caller's line for a base function's innermost call). The rule, over every
# frame of every sample, is in Rust (src/rust/core/src/formats/view/defining.rs).
defining_files <- function(stack, frames, call = rlang::caller_env()) {
  file_code <- match(frames$filename, unique(frames$filename))
  file_code[!nzchar(frames$filename)] <- 0L
  input <- list(
    sample_id = stack$sample_id, depth = stack$depth, location_id = stack$location_id,
    frame_location_id = frames$location_id, frame_name = match(frames$name, unique(frames$name)),
    frame_file = file_code, frame_line = frames$line
  )
  row <- rust_value(ffi_view_defining_files(input), "Can't find the functions' files.",
    call = call
  )
  out <- frames$filename[row]
  out[is.na(out)] <- ""
  out
}

# The source lines of the view: a key per location for its file and line (0
# for frames without a known line, as profile_summary(by = "line") counts
# them), each key's file and line, and each file's name and text (from the
# profile's `source_lines`).
view_lines <- function(parts, frames) {
  counted <- frames$line > 0L
  located <- frames[counted, c("filename", "line")]
  groups <- vctrs::vec_unique(located)
  line_key <- integer(nrow(frames))
  line_key[counted] <- vctrs::vec_match(located, groups)
  files <- unique(groups$filename)
  list(
    location_line_key = line_key,
    n_line_keys = nrow(groups),
    line_file = match(groups$filename, files),
    line_number = groups$line,
    file_name = files,
    file_text = source_text_of_files(parts$source_lines, files)
  )
}

# The sources of the view in id order (the time order draws a lane for each,
# the view shows one or all): their ids, labels (the process, where
# profile_record() says which it is, then the label or file), starts in
# seconds after the earliest one, and durations in seconds (-1: unknown).
view_sources <- function(sources) {
  sources <- sources[order(sources$source_id), , drop = FALSE]
  stamp <- as.double(sources$source_timestamp)
  known <- is.finite(stamp)
  start <- rep(-1, nrow(sources))
  if (any(known)) start[known] <- stamp[known] - min(stamp[known])
  nanos <- sources[["duration_nanos"]]
  duration <- if (is.null(nanos)) rep(NA_real_, nrow(sources)) else as.double(nanos) / 1e9
  duration[!is.finite(duration) | duration < 0] <- -1
  list(
    source_ids = as.integer(sources$source_id),
    source_label = as_valid_utf8(source_lane_labels(sources)),
    source_start = start,
    source_duration = duration
  )
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
  system.file("htmlwidgets", "lib", "profile-view", package = "profile")
}

# The files of the view (this package's own, in inst/htmlwidgets/lib/
# profile-view/), scripts in the order they load.
view_scripts <- c(
  "pv-data.js", "pv-pattern.js", "pv-refine.js", "pv-lanes.js", "pv-chart-index.js", "pv-chart.js",
  "pv-chart-merged.js", "pv-chart-waits.js", "pv-flame.js", "pv-panels.js", "pv-top.js",
  "pv-refine-ui.js", "pv-link.js", "pv-export.js", "pv-navigate.js",
  "pv-compare.js", "pv-compare-table.js", "profile-view.js"
)
view_style <- c("profile-view.css", "pv-compare.css")

view_library_paths <- function(call = rlang::caller_env()) {
  files <- c(view_scripts, view_style)
  paths <- file.path(view_library_dir(), files)
  missing <- files[!file.exists(paths)]
  if (length(missing)) {
    abort_profile("internal",
      "The view's files are missing from the installed package: {.file {missing}}.",
      missing = missing, call = call
    )
  }
  stats::setNames(paths, files)
}

# The text of a file, as UTF-8, with `</script` made harmless for an inline
# <script> element.
inline_text <- function(path) {
  text <- readChar(path, file.size(path), useBytes = TRUE)
  Encoding(text) <- "UTF-8"
  gsub("</script", "<\\/script", text, fixed = TRUE, useBytes = TRUE)
}

# One self-contained HTML file: the view's scripts, styles and data inlined,
# written to a temporary file beside `path` and renamed (so a failure leaves no
# half-written file).
write_view_html <- function(json, path, title, call = rlang::caller_env()) {
  files <- view_library_paths(call = call)
  page_title <- if (is.null(title)) "profile" else title
  scripts <- unlist(lapply(view_scripts, function(f) {
    c("<script>\n", inline_text(files[[f]]), "\n</script>\n")
  }))
  pieces <- c(
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
    "<title>", html_escape(page_title), "</title>\n",
    "<style>\nhtml, body { margin: 0; height: 100%; }\n",
    "body > .profile-view { height: 100vh; padding: 8px; }\n",
    unlist(lapply(view_style, function(f) inline_text(files[[f]]))), "</style>\n</head>\n<body>\n",
    "<div class=\"profile-view\"></div>\n",
    scripts,
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
