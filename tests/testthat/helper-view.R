# Helpers for the tests of profile_view() and write_speedscope(): the view's data
# read back from the HTML file, profiles with times and diffs made by hand, and
# the browser driver (tests/browser/driver.mjs, run by node with Debian's
# chromium).

# The JSON object embedded in a file written by profile_view(file = ).
view_payload <- function(path) {
  html <- readChar(path, file.size(path), useBytes = TRUE)
  Encoding(html) <- "UTF-8"
  start_tag <- '<script type="application/json" class="profile-view-data">'
  start <- regexpr(start_tag, html, fixed = TRUE) + nchar(start_tag)
  end <- regexpr("</script>", substr(html, start, nchar(html)), fixed = TRUE)
  jsonlite::fromJSON(substr(html, start, start + end - 2L), simplifyVector = FALSE)
}

# A typed array of the payload as a numeric vector: an independent decoding of
# the little-endian bytes (and of runs of equal values).
decode_typed <- function(a) {
  if (!is.null(a$lengths)) {
    return(rep(decode_typed(a$values), decode_typed(a$lengths)))
  }
  if (!is.null(a$steps)) {
    return(a$start + a$step * cumsum(decode_typed(a$steps)))
  }
  if (!is.null(a[["const"]])) {
    return(rep(as.double(a[["const"]]), a$length))
  }
  bytes <- jsonlite::base64_dec(a$base64)
  out <- switch(a$type,
    u8 = as.integer(bytes),
    u16 = readBin(bytes, "integer", n = a$length, size = 2, signed = FALSE, endian = "little"),
    i32 = readBin(bytes, "integer", n = a$length, size = 4, endian = "little"),
    f64 = readBin(bytes, "double", n = a$length, size = 8, endian = "little")
  )
  as.double(out)
}

# The payload's tree with decoded columns: parent (0-based node numbers), key,
# line, name, and per sample type total and self (positive and negative parts).
view_tree <- function(payload) {
  tree <- payload$tree
  strings <- unlist(payload$strings)
  key_name <- strings[decode_typed(payload$keys$name) + 1]
  key <- decode_typed(tree$key)
  list(
    parent = decode_typed(tree$parent),
    key = key,
    line = decode_typed(tree$line),
    name = ifelse(key == 0, "root", key_name[pmax(key, 1)]),
    values = lapply(tree$values, function(v) lapply(v, decode_typed))
  )
}

# Per function name: the value of the nodes with that name that have no
# ancestor of the same name (what profile_summary() counts as the function's
# total: once per sample however deep it recurses). `width` has one value per
# node; node numbers are 0-based, parents before children.
outermost_sums <- function(name, parent, width) {
  outermost <- vapply(seq_along(name), function(i) {
    node <- i
    while (node > 1) {
      node <- parent[[node]] + 1
      if (name[[node]] == name[[i]]) {
        return(FALSE)
      }
    }
    TRUE
  }, logical(1))
  tapply(width[outermost], name[outermost], sum)
}

# The samples of `x` whose position (in `samples`) is in `keep`.
subset_samples <- function(x, keep) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  ids <- tables$samples$sample_id[keep]
  tables$samples <- tables$samples[tables$samples$sample_id %in% ids, ]
  for (t in c("sample_values", "sample_locations", "sample_labels")) {
    if (!is.null(tables[[t]])) tables[[t]] <- tables[[t]][tables[[t]]$sample_id %in% ids, ]
  }
  do.call(new_profile_v2, tables)
}

# Per caller (or callee) of function `f`, the value of the samples whose
# outermost frame of `f` it calls (or is called by), computed from the
# profile's tables: callees of samples where that frame is the innermost are
# "(self)".
callers_and_callees <- function(x, f, type) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  frames <- tables$sample_locations
  fid <- tables$locations$function_id[match(frames$location_id, tables$locations$location_id)]
  frames$name <- tables$functions$name[match(fid, tables$functions$function_id)]
  values <- tables$sample_values[tables$sample_values$type == type, ]
  callers <- list()
  callees <- list()
  for (stack in split(frames, frames$sample_id)) {
    d <- max(c(0, stack$depth[stack$name == f]))
    if (d == 0) next
    value <- values$value[values$sample_id == stack$sample_id[[1]]]
    caller <- stack$name[stack$depth == d + 1]
    callee <- if (d > 1) stack$name[stack$depth == d - 1] else "(self)"
    if (length(caller)) callers[[caller]] <- sum(callers[[caller]], value)
    callees[[callee]] <- sum(callees[[callee]], value)
  }
  as_frame <- function(l) {
    out <- data.frame(
      name = as.character(names(l)), value = as.numeric(unlist(l, use.names = FALSE))
    )
    out[out$value != 0, ][order(out$name[out$value != 0]), ]
  }
  list(callers = as_frame(callers), callees = as_frame(callees))
}

# ---- the browser ------------------------------------------------------------

browser_test_dir <- function() {
  normalizePath(test_path("..", "browser"), mustWork = FALSE)
}

# Skips unless node, chromium and the driver's npm modules are there; in CI
# (CI=true, which .ci/run sets, having installed them all) a missing tool is a
# failure, not a skip, so the browser tests cannot pass by not running.
skip_if_no_browser <- function() {
  skip_if_not_installed("jsonlite")
  if (!nzchar(Sys.which("node"))) {
    skip_browser("node is not installed: the browser tests need node and chromium")
  }
  chromium <- Sys.getenv("PROFILE_CHROMIUM", "/usr/bin/chromium")
  if (!file.exists(chromium)) {
    skip_browser(
      paste(
        "chromium is not installed at", chromium, "(set PROFILE_CHROMIUM): browser tests skipped"
      )
    )
  }
  if (!dir.exists(file.path(browser_test_dir(), "node_modules", "playwright-core"))) {
    skip_browser(
      "the browser tests' npm modules are missing: run `bash dev/vendor-js.sh` in the source tree"
    )
  }
}

# A skip, or in CI an error (see skip_if_no_browser()).
skip_browser <- function(message) {
  if (identical(Sys.getenv("CI"), "true")) {
    stop("CI must run the browser tests, but ", message, call. = FALSE)
  }
  skip(message)
}

# Runs a job of tests/browser/driver.mjs and returns its result (lists as they
# are in JSON; data frames for arrays of objects).
run_browser_job <- function(job) {
  path <- withr::local_tempfile(fileext = ".json")
  jsonlite::write_json(job, path, auto_unbox = TRUE)
  err <- withr::local_tempfile()
  out <- suppressWarnings(system2(
    "node", c(shQuote(file.path(browser_test_dir(), "driver.mjs")), shQuote(path)),
    stdout = TRUE, stderr = err
  ))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) {
    stop("browser driver failed: ", paste(readLines(err), collapse = "\n"))
  }
  text <- paste(out, collapse = "")
  result <- jsonlite::fromJSON(text, simplifyDataFrame = TRUE)
  attr(result, "json") <- text
  result
}

# A view of `x` written to a temporary HTML file (removed with `env`).
view_file <- function(x, ..., env = parent.frame()) {
  path <- withr::local_tempfile(fileext = ".html", .local_envir = env)
  profile_view(x, ..., file = path)
}

# No console error, uncaught error, dialog or request other than the page.
expect_clean_load <- function(result) {
  for (what in c("console", "errors", "dialogs", "requests")) {
    found <- unlist(result[[what]])
    expect_identical(length(found), 0L, label = paste(what, paste(found, collapse = "\n")))
  }
}

# State i of a view job's result (1: after loading, i + 1: after action i) as
# a list of its parts, each simplified on its own (tables as data frames).
state_at <- function(result, i) {
  raw <- jsonlite::fromJSON(attr(result, "json"), simplifyVector = FALSE)$states[[i]]
  lapply(raw, function(part) {
    if (is.list(part) && length(part)) {
      json <- jsonlite::toJSON(part, auto_unbox = TRUE, null = "null", digits = NA)
      jsonlite::fromJSON(json, simplifyDataFrame = TRUE)
    } else {
      part
    }
  })
}

# The frames of a view state in a data frame with their depth (0 = root).
view_frames <- function(state, cell_height = 18) {
  frames <- state$frames
  if (!is.data.frame(frames)) frames <- frames[[1]]
  frames$depth <- round(frames$y / cell_height)
  frames
}

# Frame widths summed per name over the frames with no ancestor of the same
# name: an ancestor of a frame is a frame at a smaller depth whose extent holds
# it.
drawn_outermost_widths <- function(frames) {
  outermost <- vapply(seq_len(nrow(frames)), function(i) {
    f <- frames[i, ]
    above <- frames$depth < f$depth & frames$name == f$name &
      frames$x <= f$x + 1e-6 & frames$x + frames$width >= f$x + f$width - 1e-6
    !any(above)
  }, logical(1))
  tapply(frames$width[outermost], frames$name[outermost], sum)
}
