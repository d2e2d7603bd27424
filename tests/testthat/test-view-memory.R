# The memory of the browser view's source panel: per line, the growth and
# shrinkage of R's vector heaps between ticks of an Rprof memory profile,
# judged against profvis (its own page, in headless chromium) on the same
# file (issue 36); and, for a recording with R's allocation profiler, the
# exact bytes per function beside the lines (issue 34), judged against
# profile_summary().

# A script whose functions allocate and free: a vector grown in a loop, a big
# vector made and dropped.
write_churn_script <- function(dir) {
  script <- file.path(dir, "churn.R")
  writeLines(c(
    "grow <- function(n) {",
    "  v <- numeric(0)",
    "  for (i in seq_len(n)) v <- c(v, i)",
    "  v",
    "}",
    "churn <- function(k) {",
    "  for (j in seq_len(k)) {",
    "    big <- numeric(2e6)",
    "    big[1] <- j",
    "    rm(big)",
    "    x <- grow(3000)",
    "  }",
    "  invisible(NULL)",
    "}"
  ), script)
  env <- new.env()
  sys.source(script, envir = env, keep.source = TRUE)
  list(script = script, env = env)
}

# Per line of the script (its basename), profvis's memory as its page computes
# it: profvis() of the Rprof file, saved with its libraries, opened in
# chromium; the code table's sums of each line (MB of 1024^2 bytes).
profvis_line_memory <- function(rprof_file, dir) {
  widget <- profvis::profvis(prof_input = rprof_file)
  html <- file.path(dir, "profvis.html")
  htmlwidgets::saveWidget(widget, html, selfcontained = FALSE, libdir = "lib")
  result <- run_browser_job(list(
    command = "evaluate", html = html, allow_dir = dir,
    ready = "window.jQuery && jQuery('.profvis').data('profvis') !== undefined",
    expression = paste(
      "jQuery('.profvis').data('profvis').fileLineStats.map((f) => f.lineData.map((l) =>",
      "({file: f.filename, line: l.linenum, alloc: l.sumMemAlloc, dealloc: l.sumMemDealloc})",
      ")).flat()"
    )
  ))
  # (profvis's page asks for a file it does not ship: a console message, not
  # an error of its script)
  expect_identical(length(unlist(result$errors)), 0L)
  lines <- result$value
  lines$file <- basename(lines$file)
  lines
}

test_that("the source panel's heap growth and shrinkage per line are profvis's", {
  skip_if_no_browser()
  skip_if_not_installed("profvis")
  skip_if_not_installed("htmlwidgets")
  dir <- withr::local_tempdir()
  code <- write_churn_script(dir)
  rprof_file <- file.path(dir, "memory.out")
  utils::Rprof(rprof_file,
    interval = 0.005, memory.profiling = TRUE, line.profiling = TRUE,
    gc.profiling = TRUE
  )
  code$env$churn(40)
  utils::Rprof(NULL)
  x <- read_rprof(rprof_file)
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "samples"),
    actions = list(list(file = code$script))
  ))
  expect_clean_load(result)
  panel <- state_at(result, 2)$source
  expect_identical(panel$file, code$script)
  shown <- panel$lines[panel$lines$has_value, ]

  expected <- profvis_line_memory(rprof_file, dir)
  expected <- expected[expected$file == "churn.R" & (expected$alloc != 0 | expected$dealloc != 0), ]
  # the recording allocates and frees: both columns have values
  expect_gt(sum(expected$alloc), 0)
  expect_lt(sum(expected$dealloc), 0)
  valued <- shown[shown$allocated != 0 | shown$released != 0, ]
  expect_setequal(valued$line, expected$line)
  m <- match(expected$line, shown$line)
  mib <- 1024^2
  expect_equal(shown$allocated[m] / mib, expected$alloc, tolerance = 1e-12)
  expect_equal(shown$released[m] / mib, -expected$dealloc, tolerance = 1e-12)
  # the cells show them in binary units, under headings that say what they are
  cell_of <- function(label) {
    vapply(valued$cells, `[[`, "", which(panel$headers$label == label))
  }
  expect_true(all(grepl("^$|B$", c(cell_of("allocated"), cell_of("released")))))
  titles <- panel$headers$title[match(c("allocated", "released"), panel$headers$label)]
  expect_match(titles, "Rprof memory profiling")
  expect_match(titles, "profvis")
  expect_match(titles[[1]], "Not exact allocations")
  expect_match(panel$legend, "vector heaps between ticks")
  expect_identical(panel$exact, list())
})

test_that("the heap lines computed in Rust are those of the R pass they replace", {
  # (the reference: 2.2's R function, kept in helper-view-reference.R, whose
  # results the profvis test above judged)
  rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")
  for (name in c("all.out", "toplevel.out", "append.out", "memory.out", "line.out")) {
    x <- read_rprof(rprof_sample(name))
    both <- view_columns_and_reference(x)
    expect_identical(both$heap, both$heap_reference, label = name)
    # from a database, the same
    con <- local_db("sqlite")
    from_db <- view_columns_and_reference(profile_db_append(con, x))
    expect_identical(from_db$heap, both$heap_reference, label = paste("sqlite", name))
  }
  # lines with heap changes, growth and shrinkage both
  heap <- view_columns_and_reference(read_rprof(rprof_sample("all.out")))$heap
  expect_gt(sum(heap$allocated > 0), 5)
  expect_gt(sum(heap$released > 0), 5)
  # a recording of R code with source references
  skip_if_not(capabilities("profmem"), "R was built without Rprofmem")
  code <- write_churn_script(withr::local_tempdir())
  x <- local(profile_record(churn(10), allocations = TRUE, interval = 0.005), envir = code$env)
  both <- view_columns_and_reference(x)
  expect_identical(both$heap, both$heap_reference)
  expect_gt(sum(both$heap$allocated), 0)
})

test_that("a recording with allocations: exact bytes per function beside the lines' time", {
  skip_if_no_browser()
  skip_if_not(capabilities("profmem"), "R was built without Rprofmem")
  code <- write_churn_script(withr::local_tempdir())
  x <- local(profile_record(churn(10), allocations = TRUE, interval = 0.005), envir = code$env)
  expect_setequal(x$sources$source_type, c("rprof", "rprofmem"))
  html <- view_file(x, type = "samples")
  result <- run_browser_job(list(
    command = "view", html = html,
    actions = list(list(file = code$script), list(type = "alloc_space"))
  ))
  expect_clean_load(result)
  by_function <- profile_summary(x, type = "alloc_space", n = Inf)
  by_line <- profile_summary(x, by = "line", type = "samples", n = Inf)
  by_line <- by_line[by_line$filename == code$script, ]
  expect_gt(nrow(by_line), 1)
  for (state in 2:3) {
    panel <- state_at(result, state)$source
    expect_identical(panel$file, code$script)
    # the functions of the file with their exact bytes, as profile_summary()
    exact <- panel$exact
    expect_setequal(exact$name, c("churn", "grow"))
    m <- match(exact$name, by_function$name)
    expect_equal(exact$flat, by_function$self[m])
    expect_equal(exact$cum, by_function$total[m])
    # (grow's vectors: at least the 8 * 3000 bytes of its last one each call)
    expect_gt(exact$cum[exact$name == "grow"], 10 * 8 * 3000)
    expect_match(panel$exact_title, "Exact bytes allocated \\(Rprofmem\\)")
    # the lines' time: samples of the Rprof source, as profile_summary()
    lines <- panel$lines[panel$lines$has_value, ]
    expect_setequal(lines$line, by_line$line)
    m <- match(by_line$line, lines$line)
    expect_equal(lines$self[m], by_line$self)
    expect_equal(lines$total[m], by_line$total)
    expect_match(panel$legend, "^self, total: samples \\(count\\)")
  }
  # with the type of Rprofmem shown, the panel says whose lines it shows
  expect_identical(state_at(result, 3)$type, "alloc_space")
  expect_match(state_at(result, 3)$source$note, "Lines show samples: alloc_space has no lines")
})
