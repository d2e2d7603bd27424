# The verbs of R/verbs.R that cut stacks at a match, filter by labels and keep
# sample types (profile_show_from(), profile_prune_from(),
# profile_filter_labels(), profile_select_types()), and the warning of a
# pattern that matches nothing: agreement with go tool pprof on real files,
# results computed in R, argument errors. (pprof_files(), write_pprof_tmp(),
# expect_verbs_agree_with_go(), frames_with_names() and quietly_matching() are
# in helper-verbs.R.)

cut_verbs <- list(show_from = profile_show_from, prune_from = profile_prune_from)

test_that("show_from and prune_from agree with go tool pprof on Go's profiles", {
  skip_if_no_go()
  # Function names, inlined Locations (fib, Builder), the mapping's file
  # (profilesamples: show_from keeps whole Locations, prune_from never matches
  # it), file names (only show_from matches them), Go methods whose simple
  # name is their package ("^sync\\.$" for sync.(*Mutex).Unlock).
  cases <- list(
    "cpu.pb.gz" = c("^main\\.", "fib", "sha256\\.block", "profilesamples$", "proc\\.go"),
    "heap.pb.gz" = c("Builder", "^os\\."),
    "goroutine.pb.gz" = c("gopark", "^main\\."),
    "mutex.pb.gz" = c("^sync\\.$", "^main\\.$", "Mutex"),
    "block.pb.gz" = c("^main\\.pipeline", "chan")
  )
  expect_setequal(basename(pprof_files()), names(cases))
  for (file in names(cases)) {
    path <- sample_path("pprof", file)
    expect_verbs_agree_with_go(read_pprof(path), path, cases[[file]], file, with = cut_verbs)
  }
  heap <- sample_path("pprof", "heap.pb.gz")
  expect_verbs_agree_with_go(
    read_pprof(heap), heap, "strings\\.", "heap.pb.gz",
    types = "all", with = cut_verbs
  )
})

test_that("show_from and prune_from agree with go tool pprof on Rprof profiles written to pprof", {
  skip_if_no_go()
  cases <- list("1.out" = c("^fib$", "lapply"), "line.out" = "alloc", "memory.out" = "memory_round")
  for (file in names(cases)) {
    x <- read_rprof(sample_path("rprof", file))
    expect_verbs_agree_with_go(x, write_pprof_tmp(x), cases[[file]], file, with = cut_verbs)
  }
})

test_that("label filters agree with go tool pprof -tagfocus and -tagignore", {
  skip_if_no_go()
  # string labels with a key, several expressions, without a key
  # ("key:value"); numeric labels (heap's bytes) in ranges with units
  cases <- list(
    "cpu.pb.gz" = c(
      "worker=fib", "worker=fib,text", "phase=^comp", "hash", "worker:hash", "nokey=x"
    ),
    "goroutine.pb.gz" = c("role=listener|ticker", "id=^1$"),
    "heap.pb.gz" = c("bytes=1kb:", "bytes=:64", "2kb:4kb", "bytes=4096", "32b")
  )
  for (file in names(cases)) {
    path <- sample_path("pprof", file)
    x <- read_pprof(path)
    types <- if (file == "heap.pb.gz") "all" else "last"
    for (filter in cases[[file]]) {
      ours <- write_pprof_tmp(quietly_matching(profile_filter_labels(x, focus = filter)))
      expect_go_agrees(path, ours, paste0("-tagfocus=", filter), types = types)
      ours <- write_pprof_tmp(quietly_matching(profile_filter_labels(x, ignore = filter)))
      expect_go_agrees(path, ours, paste0("-tagignore=", filter), types = types)
    }
  }
  cpu <- sample_path("pprof", "cpu.pb.gz")
  ours <- write_pprof_tmp(
    profile_filter_labels(read_pprof(cpu), focus = "phase=compute", ignore = "worker=fib")
  )
  expect_go_agrees(cpu, ours, c("-tagfocus=phase=compute", "-tagignore=worker=fib"))
})

test_that("the verbs compose as go tool pprof applies its flags", {
  skip_if_no_go()
  cpu <- sample_path("pprof", "cpu.pb.gz")
  x <- read_pprof(cpu)
  # Go's order: focus, ignore, hide, show; show_from; tagfocus, tagignore; prune_from
  ours <- x |>
    profile_focus("main\\.") |>
    profile_hide("runtime\\.") |>
    profile_show_from("main\\.writeCPU\\.func1$") |>
    write_pprof_tmp()
  expect_go_agrees(
    cpu, ours, c("-show_from=main\\.writeCPU\\.func1$", "-focus=main\\.", "-hide=runtime\\.")
  )
  ours <- x |>
    profile_focus("main\\.") |>
    profile_filter_labels(focus = "worker=hash|text") |>
    profile_prune_from("^main\\.hashChain$") |>
    write_pprof_tmp()
  expect_go_agrees(
    cpu, ours, c("-prune_from=^main\\.hashChain$", "-tagfocus=worker=hash|text", "-focus=main\\.")
  )
  heap <- sample_path("pprof", "heap.pb.gz")
  ours <- read_pprof(heap) |>
    profile_show_from("^main\\.") |>
    profile_filter_labels(ignore = ":1kb") |>
    write_pprof_tmp()
  expect_go_agrees(heap, ours, c("-tagignore=:1kb", "-show_from=^main\\."), types = "all")
})

# ---------------------------------------------------------------------------
# Results computed in R from the tables.

# The samples with a label `key` whose string value matches `pattern`.
samples_labelled <- function(x, key, pattern) {
  sl <- x$sample_labels
  unique(sl$sample_id[sl$key == key & !is.na(sl$value) & grepl(pattern, sl$value)])
}

test_that("filter_labels keeps the samples an R filter of sample_labels keeps", {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  ids <- x$samples$sample_id
  fib <- samples_labelled(x, "worker", "^fib$")
  compute <- samples_labelled(x, "phase", "compute")
  expect_gt(length(fib), 10)
  expect_lt(length(compute), length(ids))
  y <- profile_filter_labels(x, focus = "worker=^fib$")
  expect_silent(validate_profile(y))
  expect_identical(y$samples$sample_id, ids[ids %in% fib])
  y <- profile_filter_labels(x, focus = "phase=compute", ignore = "worker=fib")
  expect_identical(y$samples$sample_id, ids[ids %in% setdiff(compute, fib)])
  expect_identical(
    nrow(y$sample_values),
    nrow(x$sample_values[x$sample_values$sample_id %in% y$samples$sample_id, ])
  )

  heap <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  sl <- heap$sample_labels
  big <- unique(sl$sample_id[sl$key == "bytes" & !is.na(sl$num) & sl$num >= 1024 & sl$num <= 4096])
  expect_gt(length(big), 0)
  got <- profile_filter_labels(heap, focus = "bytes=1kb:4kb")$samples$sample_id
  expect_identical(got, heap$samples$sample_id[heap$samples$sample_id %in% big])
})

test_that("show_from and prune_from cut each stack where an R walk of it cuts", {
  # Rprof frames are one line each: the cut is the stack's outermost
  # (show_from) or innermost (prune_from) matching frame.
  x <- read_rprof(sample_path("rprof", "1.out"))
  frames <- frames_with_names(x)
  matched <- frames$name == "lapply"
  cut_at <- function(pick) tapply(ifelse(matched, frames$depth, NA), frames$sample_id, pick)
  outermost <- cut_at(function(d) if (all(is.na(d))) NA else max(d, na.rm = TRUE))
  innermost <- cut_at(function(d) if (all(is.na(d))) NA else min(d, na.rm = TRUE))
  at <- function(cuts) unname(cuts[as.character(frames$sample_id)])
  expect_gt(sum(!is.na(outermost)), 10)

  shown <- frames[!is.na(at(outermost)) & frames$depth <= at(outermost), ]
  pruned <- frames[is.na(at(innermost)) | frames$depth >= at(innermost), ]
  pruned$depth <- stats::ave(pruned$depth, pruned$sample_id, FUN = function(d) d - min(d) + 1L)
  cases <- list(
    list(profile_show_from(x, "^lapply$"), shown), list(profile_prune_from(x, "^lapply$"), pruned)
  )
  for (case in cases) {
    expect_silent(validate_profile(case[[1]]))
    got <- frames_with_names(case[[1]])
    rownames(got) <- rownames(case[[2]]) <- NULL
    expect_identical(got, case[[2]])
  }
})

test_that("prune_from matches function names without argument lists, and nothing else", {
  x <- read_pprof(sample_path("pprof", "mutex.pb.gz"))
  expect_true(any(grepl("^sync\\.\\(\\*Mutex\\)", x$functions$name)))
  # "sync.(*Mutex).Unlock" is "sync." to Go's simplifyFunc(), and
  # "main.(*counter).add" "main.", which cuts the sync frames it calls
  expect_no_warning(profile_prune_from(x, "^sync\\.$"))
  pruned <- profile_prune_from(x, "^main\\.$")
  expect_lt(nrow(pruned$sample_locations), nrow(x$sample_locations))
  expect_false(
    any(grepl("^sync\\.", frames_with_names(pruned)$name[frames_with_names(pruned)$depth == 1]))
  )
  expect_warning(profile_prune_from(x, "Mutex"), class = "profile_warning_no_match")
  expect_warning(profile_prune_from(x, "Mutex"), class = "profile_warning")
  # file names and mappings are not matched
  expect_warning(profile_prune_from(x, "\\.go$"), class = "profile_warning_no_match")
  expect_warning(profile_prune_from(x, "profilesamples$"), class = "profile_warning_no_match")
  expect_no_warning(profile_show_from(x, "profilesamples$"))
})

test_that("select_types keeps the types asked for, and every sample", {
  heap <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  kept <- c("inuse_space", "alloc_objects")
  y <- profile_select_types(heap, kept)
  expect_silent(validate_profile(y))
  expect_identical(y$samples$sample_id, heap$samples$sample_id)
  expect_identical(y$sample_types, heap$sample_types[heap$sample_types$type %in% kept, ])
  sv <- heap$sample_values[heap$sample_values$type %in% kept, ]
  expect_identical(as.list(y$sample_values), lapply(as.list(sv), function(v) v[seq_along(v)]))
  # a default type stays if kept, else becomes NA
  tables <- dm::dm_get_tables(heap)
  tables$sources$default_sample_type <- "inuse_space"
  with_default <- profile:::dm_from_v2_tables(tables)
  expect_identical(
    profile_select_types(with_default, kept)$sources$default_sample_type, "inuse_space"
  )
  expect_identical(
    profile_select_types(with_default, "alloc_objects")$sources$default_sample_type, NA_character_
  )
  err <- expect_error(
    profile_select_types(heap, c("inuse_space", "cpu")),
    class = "profile_error_argument"
  )
  expect_match(conditionMessage(err), "cpu")
  expect_match(conditionMessage(err), "alloc_objects")
  expect_error(profile_select_types(heap, character()), class = "profile_error_argument")
  expect_error(profile_select_types(heap, NA_character_), class = "profile_error_argument")
  expect_error(profile_select_types(heap, 1), class = "profile_error_argument")
})

test_that("select_types agrees with go tool pprof -sample_index on the types it keeps", {
  skip_if_no_go()
  heap <- sample_path("pprof", "heap.pb.gz")
  ours <- write_pprof_tmp(profile_select_types(read_pprof(heap), c("alloc_space", "inuse_objects")))
  types <- go_sample_types(ours)
  expect_identical(types$type, c("alloc_space", "inuse_objects"))
  for (i in seq_len(nrow(types))) {
    expect_same_rows(
      go_top(ours, types$type[[i]], types$unit[[i]]),
      go_top(heap, types$type[[i]], types$unit[[i]]),
      types$type[[i]]
    )
  }
})

# ---------------------------------------------------------------------------
# A pattern that matches nothing, and bad arguments

test_that("every pattern verb warns when its pattern matches no sample", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  pattern_verbs <- list(
    profile_focus, profile_ignore, profile_hide, profile_show, profile_show_from, profile_prune_from
  )
  for (verb in pattern_verbs) {
    w <- expect_warning(y <- verb(x, "no such function"), class = "profile_warning_no_match")
    expect_match(conditionMessage(w), "no such function", fixed = TRUE)
    expect_silent(validate_profile(y))
    expect_no_warning(verb(x, "^fib$"))
  }
  cpu <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  w <- expect_warning(profile_filter_labels(cpu, focus = "worker=nobody", ignore = "worker=fib"),
    class = "profile_warning_no_match"
  )
  expect_identical(unname(w$patterns), "worker=nobody")
  expect_warning(
    profile_filter_labels(cpu, ignore = "bytes=1kb:"),
    class = "profile_warning_no_match"
  )
  expect_no_warning(profile_filter_labels(cpu))
  # an empty expression: the samples with the key
  expect_identical(
    profile_filter_labels(cpu, focus = "worker=")$samples$sample_id,
    cpu$samples$sample_id[
      cpu$samples$sample_id %in% cpu$sample_labels$sample_id[cpu$sample_labels$key == "worker"]
    ]
  )
})

test_that("bad label filters and patterns are argument errors", {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  for (bad in list("", NA_character_, c("a", "b"), 1)) {
    expect_error(profile_filter_labels(x, focus = bad), class = "profile_error_argument")
    expect_error(profile_filter_labels(x, ignore = bad), class = "profile_error_argument")
  }
  expect_error(profile_filter_labels(x, focus = "worker=fib("), class = "profile_error_argument")
  expect_error(
    profile_filter_labels(x, focus = "99999999999999999999kb"),
    class = "profile_error_argument"
  )
  expect_error(profile_filter_labels(mtcars, focus = "a"), class = "profile_error_argument")
  for (verb in cut_verbs) {
    expect_error(verb(x, "("), class = "profile_error_argument")
    expect_error(verb(x, ""), class = "profile_error_argument")
  }
})
