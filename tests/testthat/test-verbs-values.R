# The verbs on values and time (R/verbs-values.R): profile_scale(),
# profile_aggregate(), profile_diff() and profile_window(); agreement with go
# tool pprof, results computed independently in R, differences in
# profile_summary() and profile_flamegraph(), argument errors.

write_pprof_tmp <- function(x) {
  path <- withr::local_tempfile(fileext = ".pb.gz", .local_envir = parent.frame())
  write_pprof(x, path)
  path
}

# The sum of the values of each (type, unit) of a profile, as a named vector.
type_totals <- function(x) {
  v <- x$sample_values
  sums <- vapply(split(v$value[seq_len(nrow(v))], paste(v$type, v$unit)), sum, 0)
  sums[order(names(sums), method = "radix")]
}

# Each sample's identity as aggregation sees it: source, stack (location ids,
# innermost first) and labels (sorted), as one string per sample id.
sample_keys <- function(x) {
  t <- dm::dm_get_tables(x)
  plain <- function(df) as.data.frame(lapply(df, function(v) v[seq_along(v)]))
  sl <- plain(t$sample_locations)
  sl <- sl[order(sl$sample_id, sl$depth), ]
  stacks <- tapply(
    sl$location_id, factor(sl$sample_id, levels = t$samples$sample_id), paste,
    collapse = " "
  )
  lab <- plain(t$sample_labels)
  lab_text <- paste(lab$key, lab$value, lab$num, lab$num_unit)
  labels <- tapply(
    lab_text,
    factor(lab$sample_id, levels = t$samples$sample_id),
    function(l) paste(sort(l), collapse = ";")
  )
  stacks[is.na(stacks)] <- ""
  labels[is.na(labels)] <- ""
  paste(t$samples$source_id, stacks, labels, sep = " | ")
}

# ---------------------------------------------------------------------------
# The tests of profile_scale

test_that("scale multiplies every type, or the named ones, and nothing else", {
  x <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  before <- type_totals(x)
  y <- profile_scale(x, 2.5)
  expect_silent(validate_profile(y))
  expect_equal(type_totals(y), before * 2.5)
  expect_identical(y$samples$sample_id, x$samples$sample_id)
  expect_identical(y$sample_locations$location_id[], x$sample_locations$location_id[])

  y <- profile_scale(x, -1, types = c("alloc_space", "inuse_objects"))
  changed <- names(before) %in% c("alloc_space bytes", "inuse_objects count")
  expected <- before
  expected[changed] <- -before[changed]
  expect_equal(type_totals(y), expected)

  # v1 input is converted; integers are numbers
  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  expect_equal(unname(type_totals(profile_scale(v1, 3L))), nrow(v1$samples) * 3)
})

test_that("scale shows in go tool pprof as the original's values times the factor", {
  skip_if_no_go()
  for (path in c(sample_path("pprof", "cpu.pb.gz"), sample_path("pprof", "heap.pb.gz"))) {
    ours <- write_pprof_tmp(profile_scale(read_pprof(path), 3))
    for (i in seq_len(nrow(go_sample_types(path)))) {
      type <- go_sample_types(path)[i, ]
      expected <- go_top(path, type$type, type$unit)
      expected$flat <- expected$flat * 3
      expected$cum <- expected$cum * 3
      expect_same_rows(
        go_top(ours, type$type, type$unit), expected, paste(basename(path), type$type)
      )
    }
  }
})

test_that("scale refuses factors that are not finite numbers and types the profile lacks", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  for (bad in list(NA_real_, Inf, NaN, "2", c(1, 2), NULL, TRUE)) {
    expect_error(profile_scale(x, bad), class = "profile_error_argument")
  }
  expect_error(profile_scale(x, 2, types = "alloc_space"), "no sample type \"alloc_space\"",
    class = "profile_error_argument"
  )
  expect_error(profile_scale(x, 2, types = NA_character_), class = "profile_error_argument")
  expect_error(profile_scale(list(), 2), class = "profile_error_argument")
})

# ---------------------------------------------------------------------------
# The tests of profile_aggregate

test_that("aggregate keeps one sample per distinct source, stack and labels, totals unchanged", {
  files <- list(
    read_pprof(sample_path("pprof", "cpu.pb.gz")),
    read_rprof(sample_path("rprof", "1.out")),
    read_rprof(sample_path("rprof", "line.out")),
    combine_profiles(
      read_rprof(sample_path("rprof", "1.out")), read_rprof(sample_path("rprof", "1.out"))
    )
  )
  for (i in seq_along(files)) {
    x <- files[[i]]
    y <- profile_aggregate(x)
    expect_silent(validate_profile(y))
    keys <- sample_keys(x)
    expect_identical(nrow(y$samples), length(unique(keys)))
    # (Go's own profile has one sample per stack and labels already)
    if (i > 1) expect_lt(nrow(y$samples), nrow(x$samples))
    # the first sample of each group stays, with its id
    expect_identical(y$samples$sample_id, x$samples$sample_id[!duplicated(keys)])
    expect_equal(type_totals(y), type_totals(x))
    # merged samples have no time; the others keep theirs
    alone <- x$samples$sample_id[!keys %in% keys[duplicated(keys)]]
    expect_identical(
      is.na(y$samples$time),
      !y$samples$sample_id %in% alone | is.na(
        x$samples$time[match(y$samples$sample_id, x$samples$sample_id)]
      )
    )
    expect_identical(nrow(profile_aggregate(y)$samples), nrow(y$samples))
  }
})

test_that("aggregate keeps the largest heap size (a gauge) and sums the other memory types", {
  x <- read_rprof(sample_path("rprof", "memory.out"))
  y <- profile_aggregate(x)
  expect_silent(validate_profile(y))
  keys <- sample_keys(x)
  v <- x$sample_values
  v <- data.frame(
    key = keys[match(v$sample_id[], x$samples$sample_id)], type = v$type[], value = v$value[]
  )
  yv <- y$sample_values
  yv <- data.frame(
    key = keys[match(yv$sample_id[], x$samples$sample_id)], type = yv$type[], value = yv$value[]
  )
  for (type in unique(v$type)) {
    gauge <- type %in% c("small_vector_heap", "large_vector_heap", "node_heap")
    expected <- c(tapply(v$value[v$type == type], v$key[v$type == type], if (gauge) max else sum))
    got <- c(tapply(yv$value[yv$type == type], yv$key[yv$type == type], sum))
    expect_equal(got[names(expected)], expected, label = type)
  }
})

test_that("aggregate changes neither go tool pprof -top nor -traces", {
  skip_if_no_go()
  for (path in c(sample_path("pprof", "cpu.pb.gz"), sample_path("pprof", "heap.pb.gz"))) {
    ours <- write_pprof_tmp(profile_aggregate(read_pprof(path)))
    expect_go_agrees(
      path, ours, character(),
      label = paste(basename(path), "aggregated"), types = "all"
    )
  }
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_go_agrees(
    write_pprof_tmp(x),
    write_pprof_tmp(profile_aggregate(x)),
    character(),
    label = "1.out aggregated"
  )
})

# ---------------------------------------------------------------------------
# The tests of profile_diff

test_that("diff equals go tool pprof -diff_base on two runs of a Go program", {
  skip_if_no_go()
  for (file in c("cpu.pb.gz", "heap.pb.gz")) {
    x_path <- sample_path("pprof", file)
    base_path <- sample_path("pprof-second-run", file)
    d <- profile_diff(read_pprof(x_path), read_pprof(base_path))
    expect_silent(validate_profile(d))
    expect_go_agrees(
      x_path,
      write_pprof_tmp(d),
      paste0("-diff_base=", base_path),
      label = paste(file, "diff"),
      types = "all"
    )
  }
})

test_that("diff equals go tool pprof -diff_base on Rprof files written to pprof", {
  skip_if_no_go()
  # (go tool pprof subtracts profiles of the same sample types only)
  one <- read_rprof(sample_path("rprof", "1.out"))
  memory <- read_rprof(sample_path("rprof", "memory.out"))
  pairs <- list(
    "1.out - line.out" = list(one, read_rprof(sample_path("rprof", "line.out"))),
    "1.out - 1.out" = list(one, one),
    "memory.out - its first 0.2 s" = list(memory, profile_window(memory, to = 0.2))
  )
  for (label in names(pairs)) {
    x <- pairs[[label]][[1]]
    base <- pairs[[label]][[2]]
    ours <- write_pprof_tmp(profile_diff(x, base))
    base_path <- write_pprof_tmp(base)
    expect_go_agrees(
      write_pprof_tmp(x), ours, paste0("-diff_base=", base_path),
      label = label, types = "all"
    )
  }
})

test_that("diff negates and labels the base, marks its sources, and keeps x as it is", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  base <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  d <- profile_diff(x, base)
  expect_silent(validate_profile(d))
  expect_identical(
    d$sources$diff_base, c(rep(FALSE, nrow(x$sources)), rep(TRUE, nrow(base$sources)))
  )
  n_x <- nrow(x$samples)
  expect_identical(nrow(d$samples), n_x + nrow(base$samples))
  is_base <- d$samples$source_id %in% d$sources$source_id[d$sources$diff_base]
  expect_identical(sum(!is_base), n_x)
  # (both have a type "samples")
  expected <- type_totals(d) * 0
  expected[names(type_totals(x))] <- type_totals(x)
  expected[names(type_totals(base))] <- expected[names(type_totals(base))] - type_totals(base)
  expect_equal(type_totals(d), expected)
  labels <- d$sample_labels
  base_ids <- d$samples$sample_id[is_base]
  marked <- labels$sample_id[labels$key == "pprof::base" & labels$value == "true"]
  expect_setequal(marked, base_ids)
  expect_identical(anyDuplicated(marked), 0L)
})

test_that("summaries of a difference are signed, sorted by size, percentages of the base", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  base <- profile_ignore(x, "^sort") |> profile_scale(2)
  d <- profile_diff(x, base)
  s <- profile_summary(d, n = Inf)
  # by hand: each function's self value in x minus twice that in x without sort
  self_of <- function(p) {
    s <- profile_summary(p, n = Inf)
    stats::setNames(s$self, s$name)
  }
  in_x <- self_of(x)
  in_base <- self_of(base)
  names_all <- union(names(in_x), names(in_base))
  expected <- stats::setNames(rep(0, length(names_all)), names_all)
  expected[names(in_x)] <- expected[names(in_x)] + in_x
  expected[names(in_base)] <- expected[names(in_base)] - in_base
  expected <- expected[expected != 0]
  expect_equal(stats::setNames(s$self, s$name)[names(expected)], expected)
  expect_true(any(s$self < 0))
  expect_true(any(s$self > 0))
  expect_identical(order(-abs(s$self), -abs(s$total), method = "radix"), seq_len(nrow(s)))
  base_total <- sum(base$sample_values$value[base$sample_values$type == "samples"])
  expect_equal(s$self_pct, 100 * s$self / base_total)
  expect_equal(attr(s, "grand_total"), nrow(x$samples) - base_total)
})

test_that("summaries of a difference agree with go tool pprof -diff_base -top", {
  skip_if_no_go()
  x <- read_rprof(sample_path("rprof", "1.out"))
  base <- read_rprof(sample_path("rprof", "line.out"))
  x_path <- write_pprof_tmp(x)
  base_path <- write_pprof_tmp(base)
  go <- go_top(x_path, "samples", "count", paste0("-diff_base=", base_path))
  s <- profile_summary(profile_diff(x, base), n = Inf)
  s <- s[order(s$name, method = "radix"), ]
  expect_equal(s$self, go$flat[match(s$name, go$name)])
  expect_equal(s$total, go$cum[match(s$name, go$name)])
})

test_that("a flame graph of a difference is laid out by absolute values, coloured by sign", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  base <- profile_ignore(x, "^sort")
  d <- profile_diff(x, base)
  path <- withr::local_tempfile(fileext = ".png")
  grDevices::png(path)
  frames <- profile_flamegraph(d, min_width = 0)
  grDevices::dev.off()
  root <- frames[frames$depth == 0L, ]
  expect_equal(root$width, 1)
  expect_equal(root$total, nrow(x$samples) - nrow(base$samples))
  # sort only runs in x: growth, in full red; the rest is in both
  sort_frames <- frames[grepl("^sort", frames$name), ]
  expect_gt(nrow(sort_frames), 0)
  expect_true(all(sort_frames$group == "growth"))
  expect_true(all(sort_frames$colour == grDevices::rgb(1, 0.25, 0.25)))
  unchanged <- frames[frames$total == 0 & frames$depth > 0, ]
  expect_true(all(is.na(unchanged$group)))
  expect_true(all(unchanged$colour == "#FFFFFF"))
  # widths: the frames' values in both profiles, as shares of both totals
  both <- nrow(x$samples) + nrow(base$samples)
  main <- frames[frames$name == "main" & frames$depth == 1L, ]
  if (nrow(main)) {
    in_x <- profile_summary(x, n = Inf)
    in_base <- profile_summary(base, n = Inf)
    expect_equal(
      main$width, (in_x$total[in_x$name == "main"] + in_base$total[in_base$name == "main"]) / both
    )
  }
  shrink <- profile_diff(base, x) |>
    profile_flamegraph(min_width = 0) |>
    suppressWarnings()
  grDevices::dev.off()
  expect_true(all(shrink$group[grepl("^sort", shrink$name)] == "shrinkage"))
})

test_that("diff refuses what is not a profile, naming the argument", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_error(profile_diff(x, 1), "`base` must be a profile", class = "profile_error_argument")
  expect_error(profile_diff("x", x), "`x` must be a profile", class = "profile_error_argument")
})

# ---------------------------------------------------------------------------
# The tests of profile_window

# The sample lines of an Rprof file by source (header): a data frame of
# `source` (1, 2, ... per header) and `time`, (i - 1) * interval for the i-th
# sample line after its header; read without the package's reader.
rprof_line_times <- function(path) {
  lines <- readLines(path)
  header <- grepl("sample\\.interval=", lines)
  interval <- as.numeric(sub(".*sample\\.interval=([0-9]+).*", "\\1", lines[header])) / 1e6
  source <- cumsum(header)
  is_sample <- !header & !startsWith(lines, "#File ") & source > 0
  index <- stats::ave(seq_along(lines), source, FUN = function(i) cumsum(is_sample[i]))
  data.frame(
    source = source[is_sample], time = (index[is_sample] - 1) * interval[source[is_sample]]
  )
}

test_that("window keeps the samples the lines of the Rprof file put in it", {
  for (file in c("1.out", "line.out", "memory.out", "append.out")) {
    path <- sample_path("rprof", file)
    x <- read_rprof(path)
    times <- rprof_line_times(path)
    expect_identical(nrow(x$samples), nrow(times), label = file)
    end <- max(times$time)
    bounds <- list(c(0, end / 3), c(end / 3, end / 2), c(end / 2, end + 1), c(end / 4, end / 4))
    for (b in bounds) {
      y <- profile_window(x, b[[1]], b[[2]])
      expect_silent(validate_profile(y))
      expected <- sum(times$time >= b[[1]] - 1e-9 & times$time < b[[2]] - 1e-9)
      expect_identical(nrow(y$samples), expected, label = paste(file, b[[1]], b[[2]]))
    }
    expect_identical(
      nrow(profile_window(x, from = end / 2)$samples), sum(times$time >= end / 2 - 1e-9)
    )
    expect_identical(
      nrow(profile_window(x, to = end / 2)$samples), sum(times$time < end / 2 - 1e-9)
    )
    expect_identical(nrow(profile_window(x)$samples), nrow(times))
  }
})

test_that("window keeps the values, stacks and labels of the samples it keeps", {
  x <- read_rprof(sample_path("rprof", "memory.out"))
  y <- profile_window(x, 0.1, 0.3)
  kept <- x$samples$sample_id[!is.na(x$samples$time) & x$samples$time >= 0.1 & x$samples$time < 0.3]
  expect_gt(length(kept), 0)
  expect_identical(y$samples$sample_id, kept)
  expect_identical(
    y$sample_values$value[], x$sample_values$value[x$sample_values$sample_id %in% kept]
  )
  expect_identical(
    y$sample_locations$location_id[],
    x$sample_locations$location_id[x$sample_locations$sample_id %in% kept]
  )
  expect_identical(y$locations, x$locations)
})

test_that("window refuses reversed or non-numeric bounds and profiles without times", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_error(
    profile_window(x, 2, 1), "must not start after it ends",
    class = "profile_error_argument"
  )
  for (bad in list("1", NA_real_, c(0, 1), TRUE)) {
    expect_error(profile_window(x, from = bad), class = "profile_error_argument")
    expect_error(profile_window(x, to = bad), class = "profile_error_argument")
  }
  cpu <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  expect_error(profile_window(cpu, 0, 1), "no sample times", class = "profile_error_argument")
  no_column <- dm::dm_zoom_to(x, samples) |>
    dplyr::select(-time) |>
    dm::dm_update_zoomed()
  expect_error(profile_window(no_column, 0, 1), "absent", class = "profile_error_argument")
})
