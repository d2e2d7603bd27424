# profile_view() of a recording of parallel code: the main process's lane
# shows where it waited for its workers (the table `waits`, R/waits.R), its
# samples placed around the wait (R/view-waits.R).

# The waits of the view's data (the JSON of a file written by profile_view()),
# on the wall clock (seconds since the epoch).
payload_waits <- function(x, path) {
  payload <- view_payload(path)
  waits <- payload$waits
  if (is.null(waits)) {
    return(NULL)
  }
  origin <- min(dm::dm_get_tables(x)$sources$source_timestamp)
  data.frame(
    source = unlist(waits$source), start = unlist(waits$start) + origin,
    end = unlist(waits$end) + origin, label = unlist(waits$label)
  )
}

test_that("the view's data has the main process's wait, labelled, at its wall-clock time", {
  r <- local_waiting_recording()
  waits <- payload_waits(r$x, view_file(r$x))
  expect_false(is.null(waits))
  long <- long_wait(waits$start, waits$end, r)
  expect_identical(nrow(long), 1L)
  inside <- waits$start >= long$start & waits$end <= long$end
  expect_true("waiting for workers" %in% waits$label[inside])
  expect_within(long$start, r$start, r$tolerance)
  expect_within(long$end, r$end, r$tolerance)
})

# The chart of the recording `x` in chromium: the main lane's wait for the
# workers lies within 50 ms of the parallel call's span, the main-only work
# before it on its left and after it on its right, the workers' blocks inside.
expect_wait_drawn <- function(x, r) {
  result <- run_browser_job(list(
    command = "view", html = view_file(x), width = 1200,
    actions = list(list(mode = "chart"))
  ))
  expect_clean_load(result)
  state <- state_at(result, 2)
  lanes <- state$lanes
  expect_identical(nrow(lanes), 3L)
  main_lane <- which(startsWith(lanes$label, "main"))
  expect_length(main_lane, 1L)
  waits <- lanes$waits[[main_lane]]
  stamps <- dplyr::collect(dm::dm_get_tables(x)$sources)$source_timestamp
  waits$start <- waits$start + min(stamps)
  waits$end <- waits$end + min(stamps)
  long <- long_wait(waits$start, waits$end, r)
  expect_identical(nrow(long), 1L)
  expect_within(long$start, r$start, r$tolerance)
  expect_within(long$end, r$end, r$tolerance)
  # its blocks, drawn with their label
  frames <- view_frames(state)
  inside <- waits$start >= long$start & waits$end <= long$end
  blocks <- frames[match(waits$node[inside], frames$node), ]
  expect_identical(blocks$name, waits$label[inside])
  for_workers <- inside & waits$label == "waiting for workers"
  expect_true(any(for_workers))
  expect_match(waits$detail[for_workers], "worker pid", fixed = TRUE)
  left <- min(blocks$x)
  right <- max(blocks$x + blocks$width)
  # the lanes' rows: the main lane's frames lie between its header and the next
  header <- frames[match(lanes$node, frames$node), ]
  below <- header$y[header$y > header$y[[main_lane]]]
  main_bottom <- if (length(below)) min(below) else Inf
  in_main <- frames$y > header$y[[main_lane]] & frames$y < main_bottom
  before <- frames[in_main & frames$name == "before_part", ]
  after <- frames[in_main & frames$name == "after_part", ]
  expect_gt(nrow(before), 0L)
  expect_gt(nrow(after), 0L)
  # (the samples' places between waits are approximate: R's profiler may
  # take a tick or two fewer than the CPU time used, so that a sample next
  # to the wait may fall on its other side)
  px <- (right - left) / (long$end - long$start)
  sources <- dplyr::collect(dm::dm_get_tables(x)$sources)
  sample_px <- px * sources$period[sources$process_role == "main"] / 1e9
  beyond <- before$x + before$width > left + 1
  expect_lte(sum(before$width[beyond]), 2 * sample_px + 1)
  expect_lt(sum(before$width[beyond]), sum(before$width) / 2)
  ahead <- after$x < right - 1
  expect_lte(sum(after$width[ahead]), 2 * sample_px + 1)
  expect_lt(sum(after$width[ahead]), sum(after$width) / 2)
  # the workers' blocks inside the wait (within 50 ms)
  workers <- frames[!in_main & frames$name == "worker_busy", ]
  expect_gt(nrow(workers), 0L)
  expect_gte(min(workers$x), left - 0.05 * px)
  expect_lte(max(workers$x + workers$width), right + 0.05 * px)
  invisible(state)
}

test_that("the time order draws the main process's wait where it happened", {
  skip_if_no_browser()
  r <- local_waiting_recording()
  expect_wait_drawn(r$x, r)
})

test_that("the wait is drawn the same from a profile in a SQLite database", {
  skip_if_no_browser()
  skip_if_not_installed("RSQLite")
  r <- local_waiting_recording()
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  db <- profile_db_append(con, r$x)
  expect_identical(
    dplyr::collect(dm::dm_get_tables(db)$waits)$start_time,
    dm::dm_get_tables(r$x)$waits$start_time
  )
  expect_wait_drawn(db, r)
})

test_that("a sample after a wait is placed at the wait's end plus its CPU time since", {
  samples <- data.frame(source_id = c(1L, 1L, 1L, 2L), time = c(0, 0.1, 0.3, 0.1))
  sources <- data.frame(source_id = 1:2, source_timestamp = c(100, 100.5))
  waits <- data.frame(source_id = 1L, start_time = 100.2, end_time = 101.2, cpu_time = 0.2)
  placed <- profile:::place_around_waits(samples, sources, waits)
  expect_equal(placed$time, c(0, 0.1, 1.2 + 0.1, 0.1))
})
