# combine_profiles(), the summary, flame graph and folded stacks facing hostile
# input: profile_error of the documented class, never an error from elsewhere.

test_that("combine_profiles() with things that are not profiles, or broken ones", {
  x <- tiny_v2()
  for (bad in list(
    NULL, 1, "a", data.frame(x = 1), new.env(), dm::dm(), identity,
    structure(list(), class = "profile_data")
  )) {
    expect_profile_error(
      combine_profiles(x, bad),
      c("argument", "invalid")[[1 + inherits(bad, c("dm", "profile_data"))]],
      "Argument 2"
    )
  }
  broken <- dm::dm_zoom_to(x, sample_locations)
  broken <- dm::dm_update_zoomed(dplyr::mutate(broken, location_id = location_id + 100L))
  expect_profile_error(combine_profiles(x, broken), "invalid", "Argument 2", "location_id")
  expect_profile_error(combine_profiles(list(a = x, b = broken)), "invalid", "Element 2 (`b`)")
  expect_profile_error(combine_profiles(x, merge = NA), "argument", "merge")
  # names with braces, printf directives and invalid bytes are quoted literally
  args <- list(x, broken)
  names(args) <- c("ok", "{b}%s%n\xff")
  expect_profile_error(do.call(combine_profiles, args), "invalid", "Argument 2 (`{b}%s%n<ff>`)")
})

test_that("combine_profiles() passes strings in any encoding on as valid UTF-8", {
  tables <- dm::dm_get_tables(tiny_v2())
  name <- tables$functions$name
  name[[1]] <- "caf\xe9"
  Encoding(name[[1]]) <- "latin1"
  name[[2]] <- "in\xffvalid"
  tables$functions$name <- name
  tables$functions$system_name <- name
  y <- do.call(new_profile_v2, as.list(tables))
  combined <- combine_profiles(y, tiny_v2())
  names <- dm::dm_get_tables(combined)$functions$name
  expect_true(all(validUTF8(names)))
  expect_true(all(c("caf\u00e9", "in<ff>valid") %in% names))
})

test_that("summary and flame graph of things that are not profiles, or broken ones", {
  broken <- dm::dm_zoom_to(tiny_v2(), sample_locations)
  broken <- dm::dm_update_zoomed(dplyr::mutate(broken, depth = depth + 3L))
  for (bad in list(NULL, 1, "a", data.frame(x = 1), dm::dm())) {
    expect_profile_error(profile_summary(bad), c("argument", "invalid")[[1 + inherits(bad, "dm")]])
    expect_profile_error(
      write_folded(bad, tempfile()), c("argument", "invalid")[[1 + inherits(bad, "dm")]]
    )
  }
  expect_profile_error(profile_summary(broken), "invalid", "depth")
  expect_profile_error(profile_summary(tiny_v2(), by = "nope"), "argument", "by")
  expect_profile_error(profile_summary(tiny_v2(), type = "nope"), "argument", "type")
  expect_profile_error(profile_summary(tiny_v2(), n = -1), "argument", "n")
  pdf(NULL)
  withr::defer(dev.off())
  expect_profile_error(profile_flamegraph(broken), "invalid", "depth")
  expect_profile_error(profile_flamegraph(tiny_v2(), colour_by = 1), "argument", "colour_by")
  expect_profile_error(
    profile_flamegraph(tiny_v2(), palette = function(n) stop("no colours")), "invalid", "no colours"
  )
})

test_that("folded files: missing, a directory, garbage, NUL bytes, a bomb, a deep stack", {
  dir <- local_dir()
  expect_profile_error(read_folded(file.path(dir, "missing.folded")), "io", "missing.folded")
  expect_profile_error(read_folded(dir), "io", "directory")
  garbage <- hostile_file(dir, "garbage.folded", random_bytes(3000, 5))
  expect_profile_error(read_folded(garbage), "format", "garbage.folded", "line")
  nul <- hostile_file(dir, "nul.folded", "main;f", as.raw(0), "g 3\n")
  fun <- dm::dm_get_tables(read_folded(nul))$functions
  expect_identical(fun$name, c("main", "f<00>g"))
  small <- gzip_file(dir, "small.gz", charToRaw(strrep("main;f 1\n", 1e5)))
  expect_profile_error(read_folded(small, max_size = 1e5), "limit", "small.gz", "max_size")
  deep <- gzip_file(dir, "deep.gz", charToRaw(paste0(strrep("f;", 1e6), "f 1\n")))
  expect_profile_error(read_folded(deep), "limit", "deep.gz", "line 1", "1000000 frames")
  expect_profile_error(read_folded(garbage, type = NA), "argument", "type")
})

test_that("folded stacks written and read with names in any encoding", {
  dir <- local_dir()
  tables <- dm::dm_get_tables(tiny_v2())
  name <- tables$functions$name
  name[[1]] <- "a;b\xff"
  tables$functions$name <- name
  y <- do.call(new_profile_v2, as.list(tables))
  path <- file.path(dir, "{x}%s.folded")
  write_folded(y, path)
  back <- dm::dm_get_tables(read_folded(path))$functions$name
  expect_true("a;b<ff>" %in% back)
})
