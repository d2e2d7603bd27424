# profile_view() and write_speedscope() in a real browser: Debian's chromium,
# headless, driven by tests/browser/driver.mjs (playwright-core). Skipped with a
# message where node, chromium or the driver's npm modules are missing
# (`bash dev/vendor-js.sh` installs the modules).

rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")
pprof_sample <- function(name) system.file("samples", "pprof", name, package = "profile")

# The frames each state records were drawn: the canvas has their fill inside
# their left edge (checked by the driver on every frame wide enough).
expect_drawn_as_recorded <- function(states) {
  expect_true(all(states$pixels_checked[states$mode %in% c("graph", "chart")] > 0))
  expect_identical(sum(states$pixels_wrong), 0L)
}

# For the functions of `summary` with the largest totals: the frames drawn with
# their name (outermost ones only) are together as wide as the function's share
# of the total, within a pixel.
expect_widths_match_summary <- function(state, summary, n = 6) {
  frames <- view_frames(state)
  width <- frames$width[frames$depth == 0]
  drawn <- drawn_outermost_widths(frames)
  top <- utils::head(summary[order(-summary$total), ], n)
  expected <- top$total / attr(summary, "grand_total") * width
  expect_true(all(top$name %in% names(drawn)))
  expect_lt(max(abs(drawn[top$name] - expected)), 1)
}

test_that("an Rprof profile: loads offline; frames named, as wide as their totals; search", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  # the counts (the time of the ticks is the default; see test-oracle-exact-answers.R)
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"), width = 1200, height = 800,
    actions = list(list(search = "^fib$"), list(hover = "fib"), list(click = "time_round"))
  ))
  expect_clean_load(result)
  states <- result$states
  first <- states[1, ]
  summary <- profile_summary(x, type = "samples", n = Inf)
  frames <- view_frames(first)
  expect_true(all(summary$name[summary$total > 0] %in% frames$name))
  expect_widths_match_summary(first, summary)
  expect_drawn_as_recorded(states)
  expect_match(first$heading, "total 320", fixed = TRUE)

  # search: the matching frames (and only they) take the highlight colour;
  # the share reported is fib's share of the total
  searched <- view_frames(states[2, ])
  highlight <- "rgb(230,0,230)"
  expect_true(all(searched$fill[searched$name == "fib"] == highlight))
  expect_false(any(searched$fill[searched$name != "fib"] == highlight))
  fib <- summary$total[summary$name == "fib"] / attr(summary, "grand_total")
  expect_equal(states$search_share[[2]], fib)
  expect_match(states$status[[2]], sprintf("(%.2f%%)", 100 * fib), fixed = TRUE)

  # the tooltip: name, file:line, total and self with percent
  tooltip <- states$tooltip[[3]]
  expect_match(tooltip, "^fib")
  expect_match(tooltip, "recursion.R:[0-9]+total [0-9]+ \\([0-9.]+%\\)self [0-9]+ \\([0-9.]+%\\)")

  # a click zooms: the frame takes the whole width, its ancestors are faded
  zoomed <- view_frames(states[4, ])
  time_round <- zoomed[zoomed$name == "time_round" & !zoomed$faded, ]
  expect_equal(time_round$width, zoomed$width[zoomed$depth == 0])
  expect_true(all(zoomed$faded[zoomed$depth < time_round$depth[[1]]]))
})

test_that("the sample type switcher changes the totals and the widths; values in their units", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("memory.out"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(list(type = "alloc_size"), list(type = "duplications"))
  ))
  expect_clean_load(result)
  states <- result$states
  expect_identical(states$type, c("samples", "alloc_size", "duplications"))
  expect_identical(
    states$types[[1]],
    c("samples (count)", "duplications (count)", "alloc_size (bytes)", "time (seconds)")
  )
  for (i in 1:3) {
    summary <- profile_summary(x, type = states$type[[i]], n = Inf)
    expect_widths_match_summary(states[i, ], summary)
  }
  expect_drawn_as_recorded(states)
  expect_match(states$heading[[1]], "total 375", fixed = TRUE)
  # bytes in binary units
  bytes <- attr(profile_summary(x, type = "alloc_size"), "grand_total")
  expect_match(states$heading[[2]], sprintf("total %s GiB", signif(bytes / 2^30, 3)), fixed = TRUE)
  expect_match(states$heading[[3]], "total 18,512", fixed = TRUE)
  expect_false(identical(states$frames[[1]]$width, states$frames[[2]]$width))
})

test_that("Go profiles: heap opens at go tool pprof's sample type; CPU time in time units", {
  skip_if_no_browser()
  heap <- read_pprof(pprof_sample("heap.pb.gz"))
  cpu <- read_pprof(pprof_sample("cpu.pb.gz"))
  result <- run_browser_job(list(command = "view", html = view_file(heap)))
  expect_clean_load(result)
  state <- result$states[1, ]
  expect_identical(state$type, attr(profile_summary(heap), "sample_type"))
  expect_widths_match_summary(state, profile_summary(heap, n = Inf), n = 4)
  expect_drawn_as_recorded(result$states)

  result <- run_browser_job(list(
    command = "view", html = view_file(cpu), actions = list(list(type = "samples"))
  ))
  expect_clean_load(result)
  states <- result$states
  expect_identical(states$type, c("cpu", "samples"))
  for (i in 1:2) {
    expect_widths_match_summary(states[i, ], profile_summary(cpu, type = states$type[[i]], n = Inf))
  }
  expect_drawn_as_recorded(states)
  # nanoseconds shown as seconds or milliseconds
  total <- attr(profile_summary(cpu, type = "cpu"), "grand_total")
  expect_match(states$heading[[1]], sprintf("total %s s", signif(total / 1e9, 4)), fixed = TRUE)
})

test_that("a diff profile shows growth and shrinkage in two colours", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  d <- profile_diff(subset_samples(x, 161:320), subset_samples(x, 1:160))
  # counts (the ticks' time would sum to a tiny remainder, not 0)
  result <- run_browser_job(list(
    command = "view", html = view_file(d, type = "samples"),
    actions = list(list(hover = "spin"))
  ))
  expect_clean_load(result)
  frames <- view_frames(result$states[1, ])
  rgb <- do.call(rbind, regmatches(frames$fill, gregexpr("[0-9]+", frames$fill)))
  rgb <- matrix(as.integer(rgb), ncol = 3)
  grows <- rgb[, 1] == 255 & rgb[, 3] < 255
  shrinks <- rgb[, 3] == 255 & rgb[, 1] < 255
  expect_true(any(grows) && any(shrinks))
  # each frame's colour follows the sign of its node's difference
  tree <- view_tree(view_payload(view_file(d, type = "samples")))
  difference <- (tree$values[[1]]$total_pos + tree$values[[1]]$total_neg)[frames$node + 1]
  expect_identical(grows, difference > 0)
  expect_identical(shrinks, difference < 0)
  expect_drawn_as_recorded(result$states)
  expect_match(result$states$heading[[1]], "difference 0 (profile 160, base 160)", fixed = TRUE)
  expect_match(result$states$tooltip[[2]], "profile [0-9]+, base [0-9]+")
})

test_that("the flame chart of an Rprof profile draws its frames in time order, on a time axis", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  expect_false(anyNA(dm::dm_get_tables(x)$samples$time))
  result <- run_browser_job(list(
    command = "view", html = view_file(x),
    actions = list(list(mode = "chart"), list(hover = "fib"))
  ))
  expect_clean_load(result)
  chart <- view_frames(result$states[2, ])
  expect_identical(result$states$mode, c("graph", "chart", "chart"))
  expect_drawn_as_recorded(result$states)
  # the outermost function of each sample, in time order, consecutive repeats
  # collapsed: the depth-1 frames from left to right
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  frames <- merge(tables$sample_locations, tables$locations, by = "location_id")
  frames$name <- tables$functions$name[match(frames$function_id, tables$functions$function_id)]
  outer <- frames[frames$depth == stats::ave(frames$depth, frames$sample_id, FUN = max), ]
  outer <- outer[order(tables$samples$time[match(outer$sample_id, tables$samples$sample_id)]), ]
  level1 <- chart[chart$depth == 1, ]
  expect_identical(level1$name[order(level1$x)], rle(outer$name)$values)
  # widths are times: a sample is the interval (5 ms) wide
  width <- chart$width[chart$depth == 0]
  expect_equal(sum(level1$width), width)
  first_width <- level1$width[order(level1$x)][[1]]
  expect_lt(abs(first_width - rle(outer$name)$lengths[[1]] / nrow(tables$samples) * width), 1)
  expect_match(result$states$tooltip[[3]], "samples?, from [0-9.]+ m?s to [0-9.]+ m?s")
})

test_that("the table (Top) has profile_summary()'s numbers, in its orders", {
  skip_if_no_browser()
  for (x in list(read_rprof(rprof_sample("memory.out")), read_pprof(pprof_sample("cpu.pb.gz")))) {
    type <- if ("cpu" %in% x$sample_values$type) "cpu" else "alloc_size"
    result <- run_browser_job(list(
      command = "view", html = view_file(x, type = type),
      actions = list(list(mode = "table"), list(sort = "cum"))
    ))
    expect_clean_load(result)
    for (i in 2:3) {
      table <- result$states$table[[i]]
      summary <- profile_summary(x, type = type, n = Inf, sort = if (i == 2) "self" else "total")
      expect_identical(table$name, summary$name)
      expect_equal(table$flat, summary$self)
      expect_equal(table$cum, summary$total)
      # flat%, sum% and cum% as go tool pprof -top shows them
      cells <- do.call(rbind, table$cells)
      expect_identical(cells[, 2], sprintf("%.2f%%", summary$self_pct))
      expect_identical(cells[, 3], sprintf("%.2f%%", cumsum(summary$self_pct)))
      expect_identical(cells[, 5], sprintf("%.2f%%", summary$total_pct))
    }
    expect_match(result$states$table_sort[[3]], "cum")
  }
})

# An Rprof file of 450 functions (fn_001 .. fn_450, each called by one of
# grp_1 .. grp_5 under main), more than the Top table draws at first.
many_functions_rprof <- function() {
  path <- withr::local_tempfile(fileext = ".out", .local_envir = parent.frame())
  leaf <- sprintf("fn_%03d", 1:450)
  group <- sprintf("grp_%d", (1:450) %% 5 + 1)
  # (1 to 11 samples each: ties in flat, broken by cum and the name)
  count <- 1 + (1:450 * 37) %% 11
  stacks <- sprintf("\"%s\" \"%s\" \"main\" ", leaf, group)
  writeLines(c("sample.interval=10000", rep(stacks, count)), path)
  path
}

test_that("Top draws the rows in view; scrolled through, all; sorting and the CSV cover all", {
  skip_if_no_browser()
  x <- read_rprof(many_functions_rprof())
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"), width = 1000,
    actions = list(list(mode = "table"), list(sort = "name"), list(export = "csv"))
  ))
  expect_clean_load(result)
  summary <- profile_summary(x, type = "samples", n = Inf)
  expect_identical(nrow(summary), 456L)
  check_rows <- function(table, names) {
    expect_identical(table$name, names)
    m <- match(table$name, summary$name)
    expect_equal(table$flat, summary$self[m])
    expect_equal(table$cum, summary$total[m])
  }
  for (i in 2:3) {
    state <- state_at(result, i)
    expect_identical(state$table_rows, 456L)
    # drawn: fewer rows than the table's, from its first, each at its place
    drawn <- state$table_drawn
    expect_lt(nrow(drawn), 200L)
    expect_identical(drawn$row, seq_len(nrow(drawn)) - 1L)
    expect_true(all(drawn$placed))
    expect_true(drawn$in_view[[1]])
    # scrolled through: every row, each drawn at its place when in view
    expect_identical(state$table_unseen, 0L)
    expect_identical(state$table_misplaced, 0L)
  }
  # every function, in profile_summary()'s order
  check_rows(state_at(result, 2)$table, summary$name)
  # sorted by name
  check_rows(state_at(result, 3)$table, sort(summary$name, method = "radix"))
  # the CSV holds every function, whatever the table shows
  csv <- utils::read.csv(text = state_at(result, 4)$exported, stringsAsFactors = FALSE)
  expect_setequal(csv$name, summary$name)
  m <- match(summary$name, csv$name)
  expect_equal(csv$flat[m], summary$self)
  expect_equal(csv$cum[m], summary$total)
})

test_that("Top scrolled: the rows in view are those of their place, with the summary's values", {
  skip_if_no_browser()
  x <- read_rprof(many_functions_rprof())
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"), width = 1000,
    actions = list(
      list(mode = "table"), list(table_scroll = 3000), list(table_scroll = 100000),
      list(table_scroll = 1234), list(row = "fn_007")
    )
  ))
  expect_clean_load(result)
  summary <- profile_summary(x, type = "samples", n = Inf)
  first_in_view <- integer()
  for (i in 3:6) {
    drawn <- state_at(result, i)$table_drawn
    expect_lt(nrow(drawn), 200L)
    # consecutive rows, each at the place of its row in the table's order
    expect_identical(drawn$row, drawn$row[[1]] + seq_len(nrow(drawn)) - 1L)
    expect_true(all(drawn$placed))
    # row k has the values of profile_summary()'s row k
    k <- drawn$row + 1L
    expect_identical(drawn$name, summary$name[k])
    expect_equal(drawn$flat, summary$self[k])
    expect_equal(drawn$cum, summary$total[k])
    cells <- do.call(rbind, drawn$cells)
    expect_identical(cells[, 3], sprintf("%.2f%%", cumsum(summary$self_pct)[k]))
    expect_true(any(drawn$in_view))
    first_in_view[[i - 2L]] <- min(drawn$row[drawn$in_view])
  }
  # scrolled down the rows are further down the table; at the end, its last
  expect_gt(first_in_view[[1]], 100L)
  expect_identical(max(state_at(result, 4)$table_drawn$row), 455L)
  expect_lt(first_in_view[[3]], first_in_view[[1]])
  # a row clicked after scrolling to it: selected, in view
  drawn <- state_at(result, 6)$table_drawn
  expect_identical(drawn$name[drawn$selected], "fn_007")
  expect_true(drawn$in_view[drawn$selected])
})

test_that("the sandwich: the callers and callees of a function, as the samples say", {
  skip_if_no_browser()
  cases <- list(
    list(x = read_rprof(rprof_sample("line.out")), f = "fib", type = "samples"),
    list(x = read_rprof(rprof_sample("line.out")), f = "lapply", type = "samples"),
    list(x = read_pprof(pprof_sample("cpu.pb.gz")), f = "main.hashChain", type = "cpu"),
    list(x = read_pprof(pprof_sample("cpu.pb.gz")), f = "runtime.mallocgc", type = "cpu")
  )
  for (case in cases) {
    result <- run_browser_job(list(
      command = "view", html = view_file(case$x, type = case$type),
      actions = list(list(mode = "table"), list(row = case$f), list(mode = "sandwich"))
    ))
    expect_clean_load(result)
    sandwich <- state_at(result, 4)$sandwich
    expected <- callers_and_callees(case$x, case$f, case$type)
    for (side in c("callers", "callees")) {
      drawn <- sandwich[[side]]
      drawn <- drawn[order(drawn$name), ]
      expect_identical(drawn$name, expected[[side]]$name, label = paste(case$f, side))
      expect_equal(drawn$value, expected[[side]]$value, label = paste(case$f, side))
    }
    # the function's frame is the whole width of both halves
    total <- profile_summary(case$x, type = case$type, n = Inf)
    total <- total$total[total$name == case$f]
    expect_match(sandwich$heading, paste0("^", gsub("([.()*])", "\\\\\\1", case$f), ": total"))
    for (half in c("callers_frames", "callees_frames")) {
      frames <- sandwich[[half]]
      expect_identical(frames$name[frames$node == 0], case$f)
    }
  }
})

# A script of known functions, sourced with source references, recorded by
# profile_record() into `file` (kept): the profile, the file and the script.
record_known_code <- function(dir) {
  script <- file.path(dir, "work.R")
  writeLines(c(
    "slow_sum <- function(n) {",
    "  total <- 0",
    "  for (i in seq_len(n)) {",
    "    total <- total + sqrt(i)",
    "  }",
    "  total",
    "}",
    "",
    "grow <- function(n) {",
    "  v <- c()",
    "  for (i in seq_len(n)) v <- c(v, i)",
    "  length(v)",
    "}"
  ), script)
  env <- new.env()
  sys.source(script, envir = env, keep.source = TRUE)
  file <- file.path(dir, "recording.out")
  x <- local(
    profile_record(
      {
        a <- slow_sum(2e5)
        b <- grow(1.5e4)
        m <- sort(runif(5e5))
      },
      interval = 0.005,
      file = file
    ),
    envir = env
  )
  list(x = x, file = file, script = script)
}

# The files of the view's data with a line that has a value of type t.
valued_files <- function(payload, t) {
  files <- vapply(payload$files, `[[`, "", "name")
  v <- lapply(payload$lines$values[[t]], decode_typed)
  file <- files[decode_typed(payload$lines$file) + 1]
  unique(file[v$total_pos + v$total_neg != 0])
}

# Per line (basename of the file, "#", line): self and total in the view's
# source panel, from every file of the panel (states `at` of `result`).
source_panel_lines <- function(result, at) {
  rows <- lapply(at, function(i) {
    s <- state_at(result, i)$source
    l <- s$lines[s$lines$has_value, ]
    data.frame(line = paste0(basename(s$file), "#", l$line), self = l$self, total = l$total)
  })
  unique(do.call(rbind, rows))
}

# Per line ("file#line", basename), the values of `type` of the samples that
# ran it (total, once per sample) and of those whose innermost frame with a
# line ran it (self), from the profile's tables.
line_sums <- function(x, type) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  frames <- tables$sample_locations
  loc <- match(frames$location_id, tables$locations$location_id)
  fun <- match(tables$locations$function_id[loc], tables$functions$function_id)
  frames$line <- tables$locations$line[loc]
  frames$key <- paste0(basename(tables$functions$filename[fun]), "#", frames$line)
  frames <- frames[!is.na(frames$line) & frames$line > 0, ]
  values <- tables$sample_values[tables$sample_values$type == type, ]
  frames$value <- values$value[match(frames$sample_id, values$sample_id)]
  innermost <- frames[frames$depth == stats::ave(frames$depth, frames$sample_id, FUN = min), ]
  once <- frames[!duplicated(frames[c("sample_id", "key")]), ]
  total <- tapply(once$value, once$key, sum)
  self <- tapply(innermost$value, innermost$key, sum)
  self <- self[names(total)]
  data.frame(
    line = names(total), self = unname(ifelse(is.na(self), 0, self)), total = unname(total)
  )
}

test_that("source panel: per-line values as summaryRprof(lines = 'show'), memory per line", {
  skip_if_no_browser()
  rec <- record_known_code(withr::local_tempdir())
  x <- rec$x
  recorded <- basename(unique(dm::dm_get_tables(x)$source_lines$filename))
  files <- c("work.R", grep("^<expr:[0-9a-f]{8}>$", recorded, value = TRUE))
  expect_length(files, 2L)
  expect_true(all(files %in% recorded))
  # counts of ticks, as summaryRprof()'s times divided by the interval
  html <- view_file(x, type = "samples")
  payload <- view_payload(html)
  types <- vapply(payload$types, `[[`, "", "name")
  panel_files <- valued_files(payload, match("samples", types))
  result <- run_browser_job(list(
    command = "view", html = html,
    actions = lapply(panel_files, function(f) list(file = f))
  ))
  expect_clean_load(result)
  shown <- source_panel_lines(result, seq_along(panel_files) + 1)
  # the oracle: R's own summary of the file recorded
  by_line <- utils::summaryRprof(rec$file, lines = "show")
  expected <- by_line$by.line
  interval <- by_line$sample.interval
  expected <- expected[sub("#.*", "", rownames(expected)) %in% files, ]
  expected <- data.frame(
    line = rownames(expected), self = round(expected$self.time / interval),
    total = round(expected$total.time / interval)
  )
  expect_gt(nrow(expected), 3)
  expect_setequal(shown$line, expected$line)
  m <- match(expected$line, shown$line)
  expect_equal(shown$self[m], expected$self)
  expect_equal(shown$total[m], expected$total)
  # the text of the code beside them, the hottest lines marked
  work <- state_at(result, which(basename(panel_files) == "work.R") + 1)$source
  # (the code is the last column: the memory columns come before it)
  code <- vapply(work$lines$cells, function(cells) cells[[length(cells)]], "")
  expect_identical(code, readLines(rec$script))
  hottest <- work$lines$line[which.max(work$lines$self)]
  expect_true(work$lines$hot[work$lines$line == hottest])

  # memory: alloc_size per line, as the profile's samples add up
  memory_files <- valued_files(payload, match("alloc_size", types))
  result <- run_browser_job(list(
    command = "view", html = html,
    actions = c(list(list(type = "alloc_size")), lapply(memory_files, function(f) list(file = f)))
  ))
  expect_clean_load(result)
  shown <- source_panel_lines(result, seq_along(memory_files) + 2)
  expected <- line_sums(x, "alloc_size")
  expected <- expected[expected$self != 0 | expected$total != 0, ]
  expect_setequal(shown$line[shown$self != 0 | shown$total != 0], expected$line)
  m <- match(expected$line, shown$line)
  expect_equal(shown$self[m], expected$self)
  expect_equal(shown$total[m], expected$total)
})

test_that(paste(
  "selecting a function selects it in all views; a frame shows its line, a line its",
  "frames"
), {
  skip_if_no_browser()
  rec <- record_known_code(withr::local_tempdir())
  x <- rec$x
  result <- run_browser_job(list(
    command = "view", html = view_file(x),
    actions = list(
      list(mode = "table"), list(row = "grow"), list(mode = "graph"), list(mode = "sandwich"),
      list(mode = "graph"), list(click = "slow_sum"), list(reset = TRUE), list(line = 11)
    )
  ))
  expect_clean_load(result)
  states <- lapply(seq_len(9), function(i) state_at(result, i))
  # the row clicked is selected; the flame graph outlines the function's
  # frames; the sandwich shows it; the source panel shows its hottest line
  expect_identical(states[[3]]$table$name[states[[3]]$table$selected], "grow")
  graph <- view_frames(states[[4]])
  expect_true(all(graph$selected[graph$name == "grow"]))
  expect_false(any(graph$selected[graph$name != "grow"]))
  expect_match(states[[5]]$sandwich$heading, "^grow: total")
  expect_identical(basename(states[[3]]$source$file), "work.R")
  expect_identical(states[[3]]$source$current, 11L)
  # a click on a frame shows its line
  expect_identical(states[[7]]$source$current, 4L)
  # a click on a line: the frames that ran it stand out, the others are dimmed.
  # Which functions ran line 11 comes from the profile's locations: grow's
  # frame, and now and then a builtin it calls (Rprof writes the line being run
  # before the innermost frame; R's own summaryRprof() gives it that line too).
  lined <- view_frames(states[[9]])
  expect_true(states[[9]]$source$lines$selected[states[[9]]$source$lines$line == 11])
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  at_line <- tables$locations[tables$locations$line %in% 11L, ]
  at_line <- tables$functions[match(at_line$function_id, tables$functions$function_id), ]
  ran_line <- unique(at_line$name[basename(at_line$filename) == "work.R"])
  expect_true("grow" %in% ran_line)
  ran <- lined[!lined$dim & lined$depth > 0, ]
  expect_true("grow" %in% ran$name)
  expect_true(all(ran$name %in% ran_line))
  expect_true(all(lined$dim[!lined$name %in% ran_line & lined$depth > 0]))
})

test_that("the source panel without the text: line numbers and values only", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"), source_text = FALSE)
  result <- run_browser_job(list(
    command = "view", html = view_file(x), actions = list(list(source = TRUE))
  ))
  expect_clean_load(result)
  # without text the panel starts closed; the button opens it
  expect_null(state_at(result, 1)$source)
  panel <- state_at(result, 2)$source
  expect_match(panel$note, "not in the profile")
  expect_true(all(panel$lines$has_value))
  expect_true(all(vapply(panel$lines$cells, `[[`, "", 4) == ""))
  by_line <- profile_summary(x, by = "line", n = Inf)
  of_file <- by_line[by_line$filename == panel$file, ]
  expect_setequal(panel$lines$line, of_file$line)
})

test_that("speedscope files validate against speedscope's schema and open in its viewer", {
  skip_if_no_browser()
  speedscope <- file.path(browser_test_dir(), "node_modules", "speedscope", "dist", "release")
  dir <- withr::local_tempdir()
  files <- c(
    file.path(system.file("samples", "rprof", package = "profile"), rprof_sample_files),
    list.files(system.file("samples", "pprof", package = "profile"), full.names = TRUE),
    system.file("samples", "proto", "1.out.prof.pb.gz", package = "profile")
  )
  profiles <- lapply(files, function(f) {
    if (grepl("\\.out$", f)) suppressWarnings(read_rprof(f)) else read_pprof(f)
  })
  x <- read_rprof(rprof_sample("line.out"))
  profiles <- c(profiles, list(profile_diff(subset_samples(x, 161:320), subset_samples(x, 1:160))))
  written <- file.path(dir, sprintf("%02d.speedscope.json", seq_along(profiles)))
  for (i in seq_along(profiles)) write_speedscope(profiles[[i]], written[[i]])
  result <- run_browser_job(list(
    command = "speedscope", files = written,
    schema = file.path(speedscope, "file-format-schema.json"),
    viewer = file.path(speedscope, "index.html")
  ))$results
  expect_identical(nrow(result), length(written))
  for (i in seq_along(written)) {
    r <- result[i, ]
    expect_true(r$valid, label = paste(written[[i]], unlist(r$schema_errors)))
    expect_clean_load(r)
    expect_match(r$title, " - speedscope$")
    if (i > length(files)) next # the diff: its base's weights are positive
    sums <- r$profiles[[1]]
    type <- sub(" .*$", "", sums$name)
    for (t in unique(type)) {
      expect_equal(
        sum(sums$weight[type == t]), attr(profile_summary(profiles[[i]], type = t), "grand_total")
      )
    }
  }
})

test_that("the view's JavaScript passes eslint (recommended rules, plain browser scripts)", {
  skip_if_no_browser()
  eslint <- file.path(browser_test_dir(), "node_modules", "eslint", "bin", "eslint.js")
  if (!file.exists(eslint)) skip_browser("eslint is missing: run `bash dev/vendor-js.sh`")
  root <- normalizePath(file.path(browser_test_dir(), "..", ".."))
  skip_if_not(dir.exists(file.path(root, "inst", "htmlwidgets")), "not in the source tree")
  out <- withr::with_dir(root, suppressWarnings(system2("node", c(
    shQuote(eslint), "--config", file.path("tests", "browser", "eslint.config.mjs"),
    file.path("inst", "htmlwidgets")
  ), stdout = TRUE, stderr = TRUE)))
  expect_identical(attr(out, "status"), NULL, label = paste(out, collapse = "\n"))
})
