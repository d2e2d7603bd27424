# profile_view() of a profile of several sources: one lane per source in the
# time order, on a common wall-clock axis, and a selector that shows one source
# alone in every view (and in the link).

# Two recordings made one after the other (the second starts later), combined
# with the later one first, so that its source has the smaller id.
two_recordings <- function() {
  spin <- function(n) {
    s <- 0
    for (i in seq_len(n)) s <- s + sqrt(i)
    s
  }
  first_burn <- function() spin(4e6)
  second_burn <- function() spin(2e6)
  first <- profile_record(first_burn(), label = "first", memory = FALSE)
  Sys.sleep(0.3)
  second <- profile_record(second_burn(), label = "second", memory = FALSE)
  combine_profiles(second, first)
}

local_two_recordings <- local({
  made <- NULL
  function() {
    if (is.null(made)) made <<- two_recordings()
    made
  }
})

source_ids_by_label <- function(x) {
  sources <- dm::dm_get_tables(x)$sources
  stats::setNames(sources$source_id, sources$source_label)
}

test_that("the view's data names each source, with its start on a common wall clock", {
  x <- local_two_recordings()
  sources <- dm::dm_get_tables(x)$sources
  payload <- view_payload(view_file(x))
  got <- payload$sources
  ids <- decode_typed(got$id)
  expect_identical(ids, as.double(sort(sources$source_id)))
  row <- match(ids, sources$source_id)
  expect_identical(unlist(got$label), sources$source_label[row])
  # starts after the earliest, from the recordings' own start times
  expect_equal(
    decode_typed(got$start),
    sources$source_timestamp[row] - min(sources$source_timestamp),
    tolerance = 1e-9
  )
  expect_equal(decode_typed(got$duration), sources$duration_nanos[row] / 1e9, tolerance = 1e-9)
  # each source's self values, by node, add up to its number of samples
  by <- payload$by_source
  samples_type <- match("samples", vapply(payload$types, `[[`, "", "name"))
  self <- decode_typed(by$values[[samples_type]]$self_pos)
  per_source <- tapply(self, decode_typed(by$source), sum)
  counts <- table(dm::dm_get_tables(x)$samples$source_id)
  expect_equal(as.vector(per_source[names(counts)]), as.vector(counts))
})

test_that("process columns label a source when the sources have them", {
  sources <- data.frame(
    source_id = 1:3, source_type = "rprof", source_uri = c(NA, "/tmp/w.out", NA),
    source_label = c("run", NA, NA), process_role = c("main", "worker", NA),
    process_id = c(101L, 202L, NA)
  )
  expect_identical(
    profile:::source_lane_labels(sources),
    c("main pid 101: run", "worker pid 202: w.out", "source 3")
  )
  expect_identical(
    profile:::source_lane_labels(sources[c("source_id", "source_type", "source_uri")]),
    c("source 1", "w.out", "source 3")
  )
})

test_that("the time order draws one lane per source, in wall-clock order, with its samples", {
  skip_if_no_browser()
  x <- local_two_recordings()
  tables <- dm::dm_get_tables(x)
  ids <- source_ids_by_label(x)
  result <- run_browser_job(list(
    command = "view", html = view_file(x), width = 1200,
    actions = list(list(mode = "chart"), list(wheel = -300, at = 0.5), list(drag = 150))
  ))
  expect_clean_load(result)
  state <- state_at(result, 2)
  lanes <- state$lanes
  # the first recording (the larger source id) first: wall-clock order
  expect_identical(lanes$label, c("first", "second"))
  expect_identical(lanes$id, unname(ids[c("first", "second")]))
  counts <- table(tables$samples$source_id)
  expect_identical(lanes$samples, as.integer(counts[as.character(lanes$id)]))
  stamps <- tables$sources$source_timestamp[match(lanes$id, tables$sources$source_id)]
  expect_equal(lanes$start, stamps - min(stamps), tolerance = 1e-9)
  # the second lane starts after the first ended: drawn later, not after its
  # samples but at its own start, with the wait between them empty
  expect_gt(lanes$start[[2]], lanes$start[[1]] + lanes$extent[[1]])
  frames <- view_frames(state)
  header <- frames[match(lanes$node, frames$node), ]
  expect_identical(header$name, c("first", "second"))
  expect_gt(header$x[[2]], header$x[[1]] + header$width[[1]])
  inside <- frames$x >= header$x[[1]] + header$width[[1]] + 1 & frames$x < header$x[[2]] - 1
  expect_false(any(inside))
  # each lane's functions below its own label: the first recording's burn in
  # the first lane only
  expect_true(all(frames$y[frames$name == "first_burn"] > header$y[[1]]))
  expect_true(all(frames$y[frames$name == "first_burn"] < header$y[[2]]))
  expect_true(all(frames$y[frames$name == "second_burn"] > header$y[[2]]))
  expect_identical(state$pixels_wrong, 0L)
  # the wheel zooms in and dragging pans, across both lanes
  expect_lt(result$states$range$span[[3]], result$states$range$span[[2]])
  expect_false(isTRUE(all.equal(result$states$range$from[[4]], result$states$range$from[[3]])))
})

test_that("one source alone: Top as profile_summary() of that source, kept by the link", {
  skip_if_no_browser()
  x <- local_two_recordings()
  ids <- source_ids_by_label(x)
  id <- unname(ids[["second"]])
  alone <- dm::dm_filter(x, sources = (source_id == id))
  summary <- profile_summary(alone, type = "samples", n = Inf)
  html <- view_file(x, type = "samples")
  result <- run_browser_job(list(
    command = "view", html = html,
    actions = list(
      list(mode = "table"), list(source_id = id), list(reload = "link"), list(mode = "chart"),
      list(source_id = "")
    )
  ))
  expect_clean_load(result)
  whole <- state_at(result, 2)$table
  expect_equal(sum(whole$flat), nrow(dm::dm_get_tables(x)$samples))
  for (i in 3:4) {
    table <- state_at(result, i)$table
    expect_identical(table$name, summary$name)
    expect_equal(table$flat, summary$self)
    expect_equal(table$cum, summary$total)
    expect_identical(state_at(result, i)$source_id, as.character(id))
  }
  expect_match(state_at(result, 3)$link, paste0("source_id=", id), fixed = TRUE)
  expect_false("first_burn" %in% state_at(result, 3)$table$name)
  # the time order of that source alone: its lane only
  chart <- state_at(result, 5)
  expect_identical(chart$lanes$label, "second")
  source_ids <- dm::dm_get_tables(x)$samples$source_id
  expect_identical(chart$lanes$samples, as.integer(sum(source_ids == id)))
  # all sources again: both lanes
  expect_identical(state_at(result, 6)$lanes$label, c("first", "second"))
  expect_identical(state_at(result, 6)$source_id, "")
})

test_that("the flame graph of one source: its frames' widths are that source's totals", {
  skip_if_no_browser()
  x <- local_two_recordings()
  id <- unname(source_ids_by_label(x)[["first"]])
  alone <- dm::dm_filter(x, sources = (source_id == id))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(list(source_id = id))
  ))
  expect_clean_load(result)
  frames <- view_frames(state_at(result, 2))
  summary <- profile_summary(alone, type = "samples", n = Inf)
  widths <- drawn_outermost_widths(frames[frames$depth > 0, ])
  root <- frames$width[frames$depth == 0]
  shown <- summary[summary$total / sum(summary$self) * root > 5, ]
  expect_equal(
    as.vector(widths[shown$name]) / root, shown$total / sum(summary$self),
    tolerance = 0.01
  )
  expect_false("second_burn" %in% frames$name)
})

test_that("a recording with allocations: only its Rprof source has a time order", {
  skip_if_no_browser()
  skip_if_not(capabilities("profmem"), "R without memory profiling")
  grow <- function() {
    v <- list()
    for (i in 1:2e4) v[[i]] <- numeric(10)
    for (i in 1:3e5) sqrt(i)
    v
  }
  x <- profile_record(grow(), allocations = TRUE)
  types <- dm::dm_get_tables(x)$sources$source_type
  skip_if_not(setequal(types, c("rprof", "rprofmem")))
  result <- run_browser_job(list(
    command = "view", html = view_file(x), actions = list(list(mode = "chart"))
  ))
  expect_clean_load(result)
  # one source with times: no lanes, the chart as for one recording
  expect_length(state_at(result, 2)$lanes, 0L)
  expect_gt(nrow(view_frames(state_at(result, 2))), 1L)
})

test_that("sources without start times: lanes one after the other, in id order", {
  rprof <- function(f) read_rprof(system.file("samples", "rprof", f, package = "profile"))
  x <- combine_profiles(rprof("line.out"), rprof("1.out"))
  expect_true(all(is.na(dm::dm_get_tables(x)$sources$source_timestamp)))
  payload <- expect_no_warning(view_payload(view_file(x)))
  expect_identical(decode_typed(payload$sources$start), c(-1, -1))
  skip_if_no_browser()
  result <- run_browser_job(list(
    command = "view", html = view_file(x), actions = list(list(mode = "chart"))
  ))
  expect_clean_load(result)
  lanes <- state_at(result, 2)$lanes
  expect_identical(lanes$id, 1:2)
  expect_identical(lanes$label, c("line.out", "1.out"))
  expect_identical(lanes$samples, as.integer(table(dm::dm_get_tables(x)$samples$source_id)))
  expect_identical(lanes$start[[1]], 0)
  expect_equal(lanes$start[[2]], lanes$extent[[1]])
})
