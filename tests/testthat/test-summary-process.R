# profile_summary(x, by = "process"): one row per source, its value the sum
# of its samples' values, checked against the tables themselves (the sum of
# sample_values per source), on a real parallel recording, on a combined
# profile of two readers' files, and on databases of both layouts.

# Per source id, the sum of the values of `type` of its samples, from the
# tables (`factor`: per source id, the multiplier, such as the interval).
source_sums <- function(x, type, factor = NULL) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  values <- tables$sample_values[tables$sample_values$type == type, ]
  source <- tables$samples$source_id[match(values$sample_id, tables$samples$sample_id)]
  value <- values$value
  if (!is.null(factor)) value <- value * factor[as.character(source)]
  sums <- tapply(value, source, sum)
  stats::setNames(as.numeric(sums), names(sums))
}

expect_process_rows <- function(summary, expected) {
  expect_identical(sort(as.character(summary$source_id)), sort(names(expected)))
  got <- stats::setNames(summary$self, as.character(summary$source_id))
  expect_equal(got[names(expected)], expected)
  expect_identical(summary$total, summary$self)
  expect_equal(attr(summary, "grand_total"), sum(expected))
  # (of the whole profile before the verbs where it has such a total: a
  # recording's samples before `expr` count there)
  whole <- attr(summary, "whole_total")
  expect_equal(summary$self_pct, 100 * summary$self / if (is.null(whole)) sum(expected) else whole)
  expect_equal(summary$total_pct, summary$self_pct)
}

test_that("by = \"process\" on a parallel recording: each process's share", {
  skip_on_os("windows")
  x <- small_parallel_recording()
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  sources <- tables$sources
  period <- stats::setNames(sources$period / 1e9, sources$source_id)
  s <- profile_summary(x, by = "process", n = Inf)
  expect_identical(attr(s, "sample_type"), "time")
  expect_process_rows(s, source_sums(x, "samples", period))
  # the labels name each process
  expected_labels <- paste0(
    sources$process_role, " ", sources$process_id, " on ", sources$host_name, " (rprof)"
  )
  expect_setequal(s$label, expected_labels)
  counts <- profile_summary(x, type = "samples", by = "process", n = Inf)
  expect_process_rows(counts, source_sums(x, "samples"))
})

test_that("by = \"process\" on a combined profile of two readers' files", {
  a <- read_rprof(sample_path("rprof", "1.out"))
  b <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  x <- combine_profiles(a, b)
  s <- profile_summary(x, type = "alloc_space", by = "process", n = Inf)
  # the Rprof source has no alloc_space: its row is left out
  expect_process_rows(s, source_sums(x, "alloc_space"))
  expect_identical(s$label, sample_path("pprof", "heap.pb.gz"))
  counts <- profile_summary(x, type = "samples", by = "process", n = Inf)
  expect_process_rows(counts, source_sums(x, "samples"))
  # (a heap profile has no type samples)
  expect_identical(counts$label, sample_path("rprof", "1.out"))
  expect_error(profile_summary(x, by = "processes"), class = "profile_error_argument")
})

test_that("by = \"process\" on database profiles: as in memory", {
  skip_if_not_installed("RSQLite")
  a <- read_rprof(sample_path("rprof", "1.out"))
  b <- read_rprof(sample_path("rprof", "memory.out"))
  x <- combine_profiles(a, b)
  memory <- profile_summary(x, by = "process", n = Inf)
  con <- local_db("sqlite")
  profile_db_append(con, x)
  stored <- profile_db(con)
  expect_equal(profile_summary(stored, by = "process", n = Inf), memory, ignore_attr = "class")
  for (type in c("samples", "alloc_size")) {
    expect_equal(
      profile_summary(stored, type = type, by = "process", n = Inf),
      profile_summary(x, type = type, by = "process", n = Inf)
    )
  }
  # plain tables (dm::copy_dm_to())
  con2 <- local_db("sqlite")
  copied <- dm::copy_dm_to(con2, x, temporary = FALSE, set_key_constraints = FALSE)
  expect_equal(profile_summary(copied, by = "process", n = Inf), memory)
})
