# Allocation profiles (read_rprofmem()) composed with what a user combines
# them with: the verbs (judged by go tool pprof's flags on the same file),
# a SQLite database (append, then delete beside a time profile) and the OTLP
# round trip.

alloc_profile <- function() read_rprofmem(sample_path("rprofmem", "alloc.out.gz"))

summary_of <- function(x, type = "alloc_space") {
  s <- profile_summary(x, type = type, n = Inf)
  s <- as.data.frame(s)[c("name", "self", "total")]
  s[order(s$name), , drop = FALSE]
}

test_that("the verbs on allocations give go tool pprof's -focus, -ignore and -hide values", {
  skip_if_no_go()
  x <- alloc_profile()
  path <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(x, path)
  top <- summary_of(x)
  # a function in the middle of the stacks: neither all nor nothing is kept
  name <- top$name[order(-top$total)][[3]]
  pattern <- paste0("^", gsub("([.()\\[\\]{}*+?^$|\\\\])", "\\\\\\1", name, perl = TRUE), "$")
  cases <- list(
    list(verb = profile_focus, flag = "-focus"),
    list(verb = profile_ignore, flag = "-ignore"),
    list(verb = profile_hide, flag = "-hide")
  )
  for (case in cases) {
    ours <- summary_of(suppressWarnings(case$verb(x, pattern)))
    tool <- go_top(path, "alloc_space", "bytes", paste0(case$flag, "=", pattern))
    tool <- tool[tool$flat != 0 | tool$cum != 0, ]
    expect_gt(nrow(tool), 1)
    expect_false(identical(ours, top))
    expect_setequal(ours$name, tool$name)
    j <- match(tool$name, ours$name)
    expect_equal(ours$self[j], tool$flat, label = paste(case$flag, "flat"))
    expect_equal(ours$total[j], tool$cum, label = paste(case$flag, "cum"))
  }
})

test_that("allocations in a SQLite database beside a time profile: appended, summarised, deleted", {
  skip_if_not_installed("RSQLite")
  x <- alloc_profile()
  time <- read_rprof(sample_path("rprof", "memory.out"))
  con <- local_db("sqlite")
  db <- profile_db_append(con, x, time)
  sources <- dplyr::collect(db$sources)
  expect_identical(sources$source_type, c("rprofmem", "rprof"))
  expect_equal(summary_of(db), summary_of(x), ignore_attr = TRUE)
  expect_equal(
    summary_of(db, "alloc_objects"), summary_of(x, "alloc_objects"),
    ignore_attr = TRUE
  )
  db <- profile_db_delete(con, sources$source_id[sources$source_type == "rprofmem"])
  validate_profile(profile_db(con))
  expect_equal(summary_of(db, "samples"), summary_of(time, "samples"), ignore_attr = TRUE)
  expect_false("alloc_space" %in% dplyr::collect(db$sample_types)$type)
})

test_that("allocations through write_otlp() and read_otlp() keep each function's bytes, count", {
  x <- alloc_profile()
  path <- withr::local_tempfile(fileext = ".pb")
  write_otlp(x, path)
  back <- read_otlp(path)
  expect_equal(summary_of(back), summary_of(x), ignore_attr = TRUE)
  expect_equal(
    summary_of(back, "alloc_objects"), summary_of(x, "alloc_objects"),
    ignore_attr = TRUE
  )
  labels <- dm::dm_get_tables(back)$sample_labels
  expect_identical(
    sum(labels$key == "what" & labels$value == "new page"),
    sum(dm::dm_get_tables(x)$sample_labels$value == "new page")
  )
})
