# profile_view() of a recording of parallel code: the main process's lane
# shows where it waited for its workers (the table `waits`, R/waits.R), its
# samples placed around the wait (R/view-waits.R).

# Main-only work, then parLapply() on a PSOCK cluster of two workers of about
# 0.5 s each (through profile_task(), so that the tasks' spans are kept), then
# main-only work; the wall-clock span of the parallel call measured inside
# the recorded code with Sys.time(). (A cluster made before: inside the
# parallel call the main process only sends and receives, where mclapply()
# forks its children, which takes the main process's CPU time.)
waiting_recording <- function() {
  f <- parallel_functions()
  span <- new.env()
  before_part <- function() f$spin(work_size(0.2))
  after_part <- function() f$spin(work_size(0.2))
  worker_busy <- function(i) {
    clock <- proc.time()[["elapsed"]]
    while (proc.time()[["elapsed"]] - clock < 0.5) spin(1e4)
    i
  }
  environment(worker_busy) <- f
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  # (profile_task() loads profile in the workers: loaded before, so that the
  # CPU time of loading it is not counted from the workers' profiler start,
  # from which their samples are drawn)
  parallel::clusterCall(cl, loadNamespace, "profile")
  x <- profile_record(
    {
      before_part()
      span$start <- as.numeric(Sys.time())
      parallel::parLapply(cl, 1:2, profile_task(worker_busy))
      span$end <- as.numeric(Sys.time())
      after_part()
    },
    memory = FALSE, workers = cl
  )
  list(x = x, start = span$start, end = span$end)
}

# |actual - expected| <= within (times since the epoch: expect_equal()'s
# tolerance is relative).
expect_within <- function(actual, expected, within) {
  expect_lte(abs(actual - expected), within, label = sprintf("|%.3f - %.3f|", actual, expected))
}

# The waits "waiting for workers" of `waits` (start, end) that follow one
# another within 25 ms as one: the main process wakes between them to take a
# worker's result.
joined_waits <- function(start, end) {
  o <- order(start)
  start <- start[o]
  end <- end[o]
  group <- cumsum(c(TRUE, start[-1L] - end[-length(end)] > 0.025))
  data.frame(start = tapply(start, group, min), end = tapply(end, group, max))
}

local_waiting_recording <- local({
  made <- NULL
  function() {
    skip_on_os("windows")
    skip_on_cran()
    if (is.null(made)) made <<- waiting_recording()
    made
  }
})

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

# The wait of the main process during the parallel call of the recording `r`
# (the waits that follow one another within 25 ms joined, that overlap the
# call and last more than 0.3 s).
long_wait <- function(start, end, r) {
  joined <- joined_waits(start, end)
  joined[joined$end - joined$start > 0.3 & joined$start < r$end & joined$end > r$start, ,
    drop = FALSE
  ]
}

test_that("a recording of parallel code keeps the main process's wait for its workers", {
  r <- local_waiting_recording()
  tables <- dm::dm_get_tables(r$x)
  sources <- tables$sources
  main <- sources$source_id[sources$process_role == "main"]
  waits <- tables$waits
  expect_true(all(waits$source_id == main))
  # the wait that the span of the parallel call holds: within 50 ms of it
  long <- long_wait(waits$start_time, waits$end_time, r)
  expect_identical(nrow(long), 1L)
  expect_within(long$start, r$start, 0.05)
  expect_within(long$end, r$end, 0.05)
  # the workers' tasks ran during it
  expect_true(all(tables$tasks$start_time >= long$start - 0.05))
  expect_true(all(tables$tasks$end_time <= long$end + 0.05))
})

test_that("the view's data has the main process's wait, labelled, at its wall-clock time", {
  r <- local_waiting_recording()
  waits <- payload_waits(r$x, view_file(r$x))
  expect_false(is.null(waits))
  long <- long_wait(waits$start, waits$end, r)
  expect_identical(nrow(long), 1L)
  inside <- waits$start >= long$start & waits$end <= long$end
  expect_true("waiting for workers" %in% waits$label[inside])
  expect_within(long$start, r$start, 0.05)
  expect_within(long$end, r$end, 0.05)
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
  expect_within(long$start, r$start, 0.05)
  expect_within(long$end, r$end, 0.05)
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
  expect_true(all(before$x + before$width <= left + 1))
  expect_true(all(after$x >= right - 1))
  # the workers' blocks inside the wait (within 50 ms)
  px <- (right - left) / (long$end - long$start)
  workers <- frames[!in_main & frames$name == "worker_busy", ]
  expect_gt(nrow(workers), 0L)
  expect_true(all(workers$x >= left - 0.05 * px))
  expect_true(all(workers$x + workers$width <= right + 0.05 * px))
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
