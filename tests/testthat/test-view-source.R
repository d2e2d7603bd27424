# The source panel of the browser view (issue 36): the files with costs, the
# program's own first and each group hottest first, opened on the program's
# hottest file; the tooltip's file and line; a splitter whose width the
# browser and the link remember; lines that wrap or scroll inside the panel;
# the selected frame's line brought into view by a redraw that rebuilds nothing.
# And the time order of a profile that has none says why. Headless chromium,
# as test-view-browser.R.

pprof_sample <- function(name) system.file("samples", "pprof", name, package = "profile")

# A directory holding the Go program of inst/samples/pprof where its profiles
# name it (profilesamples/main.go: the samples were built with -trimpath), or
# NULL outside the source tree (data-raw/go/main.go is not installed).
go_program_dir <- function(env = parent.frame()) {
  main_go <- test_path("..", "..", "data-raw", "go", "main.go")
  if (!file.exists(main_go)) {
    return(NULL)
  }
  dir <- withr::local_tempdir(.local_envir = env)
  dir.create(file.path(dir, "profilesamples"))
  file.copy(main_go, file.path(dir, "profilesamples", "main.go"))
  dir
}

# The frames of the samples of `x` with their function's name and file and
# their line, outermost first (`depth` 1 is the innermost frame).
sample_frames <- function(x) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  frames <- tables$sample_locations
  loc <- match(frames$location_id, tables$locations$location_id)
  fun <- match(tables$locations$function_id[loc], tables$functions$function_id)
  frames$name <- tables$functions$name[fun]
  frames$file <- tables$functions$filename[fun]
  frames$line <- tables$locations$line[loc]
  frames[order(frames$sample_id, -frames$depth), ]
}

# Per file: the largest total of `type` of one of its lines (the samples that
# ran the line, each once), the files with a nonzero one.
file_heat <- function(x, type) {
  frames <- sample_frames(x)
  frames <- frames[!is.na(frames$line) & frames$line > 0 & nzchar(frames$file), ]
  values <- dm::dm_get_tables(x, keyed = FALSE)$sample_values
  values <- values[values$type == type, ]
  frames$value <- values$value[match(frames$sample_id, values$sample_id)]
  once <- frames[!duplicated(frames[c("sample_id", "file", "line")]), ]
  by_line <- tapply(once$value, paste(once$file, once$line, sep = "\r"), sum)
  heat <- tapply(abs(by_line), sub("\r.*", "", names(by_line)), max)
  heat[heat != 0]
}

# The lines of the frames at the end of call path `path` (names, outermost
# first) in the samples of `x`.
path_lines <- function(x, path) {
  frames <- sample_frames(x)
  n <- length(path)
  lines <- lapply(split(frames, frames$sample_id), function(s) {
    if (nrow(s) >= n && identical(s$name[seq_len(n)], path)) s$line[[n]] else NULL
  })
  sort(unique(unlist(lines)))
}

# The call path (names, outermost first) of the first frame drawn named
# `name`: the frames above it whose extent holds it.
drawn_path <- function(frames, name) {
  f <- frames[frames$name == name, ][1, ]
  above <- frames[frames$depth < f$depth & frames$depth > 0 &
    frames$x <= f$x + 1e-6 & frames$x + frames$width >= f$x + f$width - 1e-6, ]
  c(above$name[order(above$depth)], name)
}

test_that("a Go profile's source panel opens on main.go; the tooltip shows file:line", {
  skip_if_no_browser()
  dir <- go_program_dir()
  skip_if(is.null(dir), "the Go program of the samples (data-raw/go) is not here")
  main_go <- readLines(file.path(dir, "profilesamples", "main.go"), encoding = "UTF-8")
  cases <- list(
    list(file = "cpu.pb.gz", type = "cpu", hover = c("main.hashChain", "main.sortWords")),
    list(file = "heap.pb.gz", type = "inuse_space", hover = "main.allocList")
  )
  for (case in cases) {
    x <- read_pprof(pprof_sample(case$file), source_text = dir)
    result <- run_browser_job(list(
      command = "view", html = view_file(x, type = case$type),
      actions = lapply(case$hover, function(f) list(hover = f))
    ))
    expect_clean_load(result)
    source <- state_at(result, 1)$source
    # opened on the program's own file, whose text it shows
    expect_identical(source$file, "profilesamples/main.go", label = case$file)
    code <- vapply(source$lines$cells, function(cells) cells[[length(cells)]], "")
    expect_identical(code, main_go)
    # every file with a line of some value is listed: the program's first,
    # then the runtime's and the standard library's, each the hottest first
    heat <- file_heat(x, case$type)
    expect_setequal(source$files, names(heat))
    program <- source$file_groups == "Program"
    expect_identical(source$files[program], "profilesamples/main.go")
    expect_true(all(source$file_groups[!program] == "Runtime and libraries"))
    expect_false(is.unsorted(rev(heat[source$files[!program]])))
    expect_true(all(startsWith(source$file_labels, source$files)))
    # the tooltip: the frame's file and the lines its frames ran (one, or
    # several: main.sortWords's frames ran three), as the samples say
    frames <- view_frames(state_at(result, 1))
    for (i in seq_along(case$hover)) {
      lines <- path_lines(x, drawn_path(frames, case$hover[[i]]))
      expect_gt(length(lines), 0)
      expect_match(
        state_at(result, i + 1)$tooltip,
        paste0(
          "^", case$hover[[i]], "profilesamples/main.go:", paste(lines, collapse = ", "), "total"
        )
      )
    }
  }
  # (in the heap profile the hottest file is the runtime's: the program's is
  # preferred, not merely the hottest)
  heap <- file_heat(read_pprof(pprof_sample("heap.pb.gz")), "inuse_space")
  expect_gt(heap[["runtime/proc.go"]], heap[["profilesamples/main.go"]])
})

test_that("a redraw that changes nothing in the source panel brings the line into view", {
  # (the panel is not rebuilt then, but it scrolls to the line as a rebuild
  # did: selecting the same frame again, or showing the panel again)
  skip_if_no_browser()
  dir <- go_program_dir()
  skip_if(is.null(dir), "the Go program of the samples (data-raw/go) is not here")
  x <- read_pprof(pprof_sample("cpu.pb.gz"), source_text = dir)
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "cpu"),
    actions = list(
      list(click = "main.main"), list(source_scroll = 0), list(click = "main.main"),
      list(source_scroll = 0), list(source = TRUE), list(source = TRUE)
    )
  ))
  expect_clean_load(result)
  source <- lapply(seq_len(7), function(i) state_at(result, i)$source)
  # main.main's frame shows its line, which the samples give, far down main.go
  lines <- path_lines(x, drawn_path(view_frames(state_at(result, 1)), "main.main"))
  expect_length(lines, 1L)
  expect_equal(source[[2]]$current, lines)
  expect_gt(lines, 300)
  expect_true(source[[2]]$current_in_view)
  # scrolled away from it by hand
  expect_false(source[[3]]$current_in_view)
  # the same frame selected again: its line in view again
  expect_identical(source[[4]]$current, source[[2]]$current)
  expect_true(source[[4]]$current_in_view)
  # scrolled away, the panel hidden and shown again: its line in view
  expect_false(source[[5]]$current_in_view)
  expect_null(source[[6]])
  expect_identical(source[[7]]$current, source[[2]]$current)
  expect_true(source[[7]]$current_in_view)
})

test_that("a pprof profile's time order says why it has none", {
  skip_if_no_browser()
  x <- read_pprof(pprof_sample("cpu.pb.gz"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x),
    actions = list(list(mode = "chart"), list(mode = "graph"))
  ))
  expect_clean_load(result)
  chart <- state_at(result, 2)
  expect_identical(chart$mode, "chart")
  expect_match(chart$no_time_order, "keeps no time order")
  expect_match(chart$no_time_order, "pprof files")
  expect_identical(length(chart$frames), 0L)
  expect_identical(state_at(result, 3)$no_time_order, "")
  expect_gt(nrow(view_frames(state_at(result, 3))), 0)
})

# A recording of a script whose hot line is long (600 characters).
record_long_line <- function(dir) {
  script <- file.path(dir, "long.R")
  long <- paste0(
    "    s <- sum(sqrt(seq_len(n))) + nchar(\"", strrep("a long string ", 40), "\")"
  )
  writeLines(c("work <- function(n) {", "  for (i in 1:30) {", long, "  }", "}"), script)
  env <- new.env()
  sys.source(script, envir = env, keep.source = TRUE)
  x <- local(profile_record(work(2e6), interval = 0.005), envir = env)
  list(x = x, long = long)
}

test_that("the splitter resizes the source panel, remembered; long lines wrap or scroll", {
  skip_if_no_browser()
  rec <- record_long_line(withr::local_tempdir())
  html <- view_file(rec$x, type = "samples")
  files <- vapply(view_payload(html)$files, `[[`, "", "name")
  result <- run_browser_job(list(
    command = "view", html = html, width = 1200,
    actions = list(
      list(file = files[basename(files) == "long.R"]), list(splitter = -150), list(wrap = TRUE),
      list(reload = "fresh"), list(reload = "link")
    )
  ))
  expect_clean_load(result)
  source <- lapply(seq_len(6), function(i) state_at(result, i)$source)
  # wrapped (the default): the long line is whole, and nothing overflows
  shown <- source[[2]]
  long_row <- vapply(shown$lines$cells, function(cells) cells[[length(cells)]], "") == rec$long
  expect_identical(sum(long_row), 1L)
  expect_true(shown$wrap)
  expect_false(shown$lines_overflow)
  expect_false(shown$page_overflow)
  # the splitter dragged 150 pixels to the left: the panel is 150 wider
  expect_equal(source[[3]]$width, source[[2]]$width + 150, tolerance = 2 / 150)
  # without wrapping, long lines scroll inside the panel, not the page
  expect_false(source[[4]]$wrap)
  expect_true(source[[4]]$lines_overflow)
  expect_false(source[[4]]$page_overflow)
  # the same browser remembers width and wrapping, without the link too
  for (i in 5:6) {
    expect_equal(source[[i]]$width, source[[3]]$width, tolerance = 1e-3)
    expect_false(source[[i]]$wrap)
  }
  # the link holds the width: another browser opened with it shows it
  link <- state_at(result, 4)$link
  expect_match(link, "&source=0\\.[0-9]+")
  again <- run_browser_job(list(command = "view", html = html, width = 1200, fragment = link))
  expect_clean_load(again)
  expect_equal(state_at(again, 1)$source$width, source[[3]]$width, tolerance = 1 / 600)
})
