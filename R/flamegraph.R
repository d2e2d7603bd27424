#' Flame graph of a profile
#'
#' `profile_flamegraph()` draws a static flame graph with base graphics: the stacks
#' of all samples merged into a tree, the root (`"root"`, all samples) at the bottom
#' and callees stacked on their callers. A frame's width is proportional to the
#' value of the chosen sample type in the samples that pass through it; siblings
#' are in alphabetical (byte) order, so the x axis is not time. Frames are labelled
#' where the name fits, shortened with `..` where part of it does. With
#' `icicle = TRUE` the root is at the top and stacks grow downwards.
#'
#' It draws on the current device, so it renders to any device: `png()`,
#' `svg()`, `pdf()`, the screen. A v2 profile is a [dm::dm()], so `plot()` on
#' it keeps dm's behaviour; call `profile_flamegraph()` for v2 profiles. For v1
#' objects `plot()` calls `profile_flamegraph()`.
#'
#' @inheritParams profile_summary
#' @param colour_by What a frame's colour shows:
#'   - `"file"`: the source file of the function (frames without one are grey),
#'   - `"package"`: the package or namespace, taken from the name: `pkg` for R's
#'     `pkg::f` and `pkg:::f` (and C++'s `ns::f`), the import path for Go
#'     functions (files ending in `.go`); frames without one are grey,
#'   - `"function"`: one colour per function name,
#'   - `"auto"` (default): `"file"` when at least half of the drawn frames
#'     have a file, `"function"` otherwise.
#'
#'   A difference of two profiles ([profile_diff()]) is drawn as a difference
#'   flame graph instead: widths by absolute value (the value of the frame in
#'   both profiles, `x` and its base), colours by the frame's change (its signed
#'   total, `x` minus base, as a share of its absolute value): red where `x`
#'   has more, blue where it has less, the deeper the larger the change, white
#'   for no change. `colour_by` and `palette` are not used then.
#' @param icicle Draw the root at the top, stacks growing downwards.
#' @param min_width Frames narrower than this fraction of the total are not drawn
#'   (nor are their callees).
#' @param main Title; by default the sample type, its unit and the total.
#' @param cex Size of the frame labels.
#' @param palette A function of `n` returning `n` colours, for the groups that
#'   `colour_by` chooses (in byte order of their names).
#' @return The drawn frames, invisibly: a tibble with `name`, `filename`, `depth`
#'   (0 for the root), `start` and `width` (fractions of the total), `self` and
#'   `total` (values of the sample type; signed for a difference), `group`
#'   (what the colour stands for: `"growth"` or `"shrinkage"` for a difference)
#'   and `colour`.
#' @order 1
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
#' profile_flamegraph(x)
#' profile_flamegraph(x, icicle = TRUE, colour_by = "function")
#'
#' cpu <- read_pprof(system.file("samples/pprof/cpu.pb.gz", package = "profile"))
#' profile_flamegraph(cpu, type = "cpu", colour_by = "package")
profile_flamegraph <- function(x, type = NULL,
                               colour_by = c("auto", "file", "package", "function"),
                               icicle = FALSE, min_width = 0.0005, main = NULL,
                               cex = 0.7, palette = flame_palette) {
  colour_by <- check_choice(colour_by, c("auto", "file", "package", "function"), "colour_by")
  check_flamegraph_args(min_width, icicle, palette)
  # What to draw, under the package's errors; drawing errors are the device's.
  with_profile_errors("invalid", "Can't draw a flame graph of {.arg x}.", {
    parts <- summary_parts(x)
    sample_type <- choose_sample_type(parts, type)
    is_diff <- length(parts$base_samples) > 0
    tree <- call_tree_of(parts, sample_type)
    # A difference is laid out by absolute values (the value of both runs).
    extent <- if (is_diff) absolute_call_tree(parts, sample_type, tree) else tree
    grand_total <- extent$total[[1]]
    shown <- extent$total > 0 & extent$total >= min_width * grand_total

    frames <- tibble::new_tibble(list(
      name = ifelse(tree$key == 0L, "root", tree$name)[shown],
      filename = tree$filename[shown],
      depth = as.integer(tree$depth[shown]),
      start = extent$start[shown] / grand_total,
      width = extent$total[shown] / grand_total,
      self = tree$self_value[shown],
      total = tree$total[shown]
    ), nrow = sum(shown))
    frames <- with_frame_colours(frames, if (is_diff) extent$total[shown], colour_by, palette)
  })

  if (is.null(main)) {
    main <- sprintf(
      "%s (%s), %s %s", sample_type$type, sample_type$unit, if (is_diff) "difference" else "total",
      format_amount(tree$total[[1]], sample_type$unit)
    )
  }
  draw_flamegraph(frames, icicle = icicle, main = main, cex = cex)
  invisible(frames)
}

# plot() of a v1 object (R/v1-object.R) is its profile_flamegraph().
#' @rdname profile_flamegraph
#' @param ... For `plot()`: the arguments of `profile_flamegraph()` after `x`.
#' @order 2
#' @export
plot.profile_data <- function(x, ...) {
  profile_flamegraph(x, ...)
}

# The arguments of profile_flamegraph() that its other checks leave.
check_flamegraph_args <- function(min_width, icicle, palette, call = rlang::caller_env()) {
  if (!is_fraction(min_width)) {
    abort_argument("{.arg min_width} must be a single number in [0, 1).", call = call)
  }
  if (!rlang::is_bool(icicle)) {
    abort_argument("{.arg icicle} must be {.code TRUE} or {.code FALSE}.", call = call)
  }
  if (!is.function(palette)) {
    abort_argument("{.arg palette} must be a function of the number of colours.", call = call)
  }
}

# Whether `x` is a single number in [0, 1).
is_fraction <- function(x) {
  is.numeric(x) && length(x) == 1 && !is.na(x) && x >= 0 && x < 1
}

# `frames` with the columns `group` and `colour`. For a difference
# (`absolute_total`: each frame's absolute value, the width it is drawn with)
# the colour says growth or shrinkage and how much; otherwise it stands for the
# frame's file, package or function (`colour_by`; "auto": file where most
# frames have one).
with_frame_colours <- function(frames, absolute_total, colour_by, palette) {
  if (!is.null(absolute_total)) {
    frames$group <- ifelse(
      frames$total > 0, "growth", ifelse(frames$total < 0, "shrinkage", NA_character_)
    )
    frames$colour <- diff_colours(frames$total / absolute_total)
    return(frames)
  }
  if (colour_by == "auto") {
    has_file <- nzchar(frames$filename[frames$depth > 0])
    colour_by <- if (length(has_file) && mean(has_file) >= 0.5) "file" else "function"
  }
  frames$group <- frame_group(frames, colour_by)
  frames$colour <- group_colours(frames$group, palette)
  frames
}

#' @rdname profile_flamegraph
#' @param n The number of colours.
#' @order 3
#' @export
flame_palette <- function(n) {
  # The reds, oranges and yellows of classic flame graphs (red 205-255, green
  # 0-230, blue 0-55), spread by low-discrepancy sequences instead of random
  # numbers so that the same groups get the same colours every time.
  i <- seq_len(n)
  spread <- function(step) (i * step) %% 1
  grDevices::rgb(
    205 + 50 * spread(0.5698402910), 230 * spread(0.6180339887), 55 * spread(0.7548776662),
    maxColorValue = 255
  )
}

# The call tree of `parts` with the absolute values of the samples of type
# `sample_type$type`, checked to have the nodes of `tree` (the signed one: a
# value and its absolute are zero together, so both trees have the same nodes).
absolute_call_tree <- function(parts, sample_type, tree) {
  parts$values$value <- abs(parts$values$value)
  absolute <- call_tree_of(parts, sample_type)
  if (!identical(absolute$key, tree$key) || !identical(absolute$parent, tree$parent)) {
    abort_profile("invalid", "The call trees of the difference and of its absolute values differ.")
  }
  absolute
}

# The colours of the frames of a difference from their share of change,
# `change` = difference / absolute value, in [-1, 1]: red where `x` has more
# than its base, blue where it has less, the deeper the larger the share
# (white: no change), as the difference flame graphs of inferno and pprof.
diff_colours <- function(change) {
  change[is.na(change)] <- 0
  fade <- 1 - 0.75 * pmin(abs(change), 1)
  grDevices::rgb(
    ifelse(change > 0, 1, fade), fade, ifelse(change < 0, 1, fade)
  )
}

# What a frame's colour stands for (NA: grey).
frame_group <- function(frames, colour_by) {
  group <- switch(colour_by,
    "function" = frames$name,
    file = ifelse(
      !is.na(frames$filename) & nzchar(frames$filename), frames$filename, NA_character_
    ),
    package = package_of(frames$name, frames$filename)
  )
  group[frames$depth == 0L] <- NA_character_
  group
}

# The package of a frame, from its name: `pkg` in `pkg::f` / `pkg:::f`, or the
# import path of a Go function (`crypto/sha256.(*digest).Write` -> `crypto/sha256`).
package_of <- function(name, filename) {
  out <- rep(NA_character_, length(name))
  namespaced <- grepl("^[^:]+:::?", name)
  out[namespaced] <- sub(":::?.*$", "", name[namespaced])
  go <- !namespaced & !is.na(filename) & endsWith(filename, ".go")
  go_name <- name[go]
  dir <- ifelse(grepl("/", go_name, fixed = TRUE), sub("^(.*/).*$", "\\1", go_name), "")
  rest <- substring(go_name, nchar(dir) + 1L)
  out[go] <- paste0(dir, sub("\\..*$", "", rest))
  out
}

group_colours <- function(group, palette) {
  levels <- sort(unique(group[!is.na(group)]), method = "radix")
  colours <- palette(length(levels))
  out <- colours[match(group, levels)]
  out[is.na(group)] <- "grey80"
  out
}

draw_flamegraph <- function(frames, icicle, main, cex) {
  max_depth <- if (nrow(frames)) max(frames$depth) else 0L
  old <- graphics::par(mar = c(0.5, 0.5, 2, 0.5))
  on.exit(graphics::par(old))
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, 1), ylim = c(0, max_depth + 1), xaxs = "i", yaxs = "i")
  graphics::title(main = main, cex.main = 0.9, font.main = 1)
  if (!nrow(frames)) {
    graphics::text(0.5, 0.5, "no samples of this type")
    return(invisible())
  }
  bottom <- if (icicle) max_depth - frames$depth else frames$depth
  # Borders would cover the narrowest frames entirely.
  one_pixel <- graphics::grconvertX(1, "device", "user") - graphics::grconvertX(0, "device", "user")
  border <- ifelse(frames$width > 3 * one_pixel, "white", NA)
  graphics::rect(
    frames$start, bottom, frames$start + frames$width, bottom + 1,
    col = frames$colour, border = border, lwd = 0.5
  )
  labels <- fitted_labels(frames$name, frames$width, cex)
  labelled <- nzchar(labels)
  graphics::text(
    frames$start[labelled] + frames$width[labelled] / 2, bottom[labelled] + 0.5,
    labels[labelled],
    cex = cex
  )
}

# Labels that fit their frames: the whole name, a prefix and "..", or nothing.
fitted_labels <- function(name, width, cex) {
  if (!length(name)) {
    return(character())
  }
  padding <- graphics::strwidth("m", cex = cex)
  room <- width - padding
  full <- graphics::strwidth(name, cex = cex)
  out <- ifelse(full <= room, name, "")
  cut <- full > room
  chars <- floor(nchar(name[cut]) * room[cut] / full[cut]) - 2L
  out[cut] <- ifelse(chars >= 2L, paste0(substr(name[cut], 1L, chars), ".."), "")
  out
}
