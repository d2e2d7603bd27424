# write_otlp() on every sample file of the package, judged by protoc (no
# schema, and our own .proto), protobufjs (helper-otlp-oracle.R) and go tool
# pprof; and the round trips v2 -> OTLP -> v2, OTLP -> v2 -> OTLP and
# pprof to OTLP and back.

written <- new.env(parent = emptyenv())

# The sample file `name` (see otlp_sample_files()) read, and written as OTLP
# (binary and JSON); remembered for the file.
otlp_written <- function(name) {
  if (is.null(written[[name]])) {
    x <- otlp_read_sample(otlp_sample_files()[[name]])
    bin <- tempfile(fileext = ".pb")
    json <- tempfile(fileext = ".json")
    write_otlp(x, bin)
    write_otlp(x, json, format = "json")
    written[[name]] <- list(x = x, bin = bin, json = json)
  }
  written[[name]]
}

test_that("every sample file reads back from OTLP with the tables it had (ids aside)", {
  for (name in names(otlp_sample_files())) {
    w <- otlp_written(name)
    expect_same_profile(read_otlp(w$bin), w$x, otlp_columns = FALSE, label = name)
    expect_same_profile(read_otlp(w$json), w$x, otlp_columns = FALSE, label = paste(name, "json"))
  }
})

# The decode_raw `tree` of the file written from `w$x` (protoc, no schema)
# holds a Profile per sample type of each source, the dictionary tables as
# protobufjs counts them, and the string table protobufjs reads, byte for byte.
expect_raw_tables <- function(tree, w, name) {
  counts <- otlp_raw_counts(tree)
  count <- function(path) if (is.na(counts[path])) 0L else counts[[path]]
  types <- dm::dm_get_tables(w$x)$sample_types
  expect_identical(count("1.2.2"), nrow(types), label = paste(name, "profiles"))
  tables <- otlp_check(w$bin)[[1]]$counts$tables
  dictionary <- c(
    mappingTable = "2.1", locationTable = "2.2", functionTable = "2.3", linkTable = "2.4",
    stringTable = "2.5", attributeTable = "2.6", stackTable = "2.7"
  )
  for (table in names(dictionary)) {
    expect_identical(count(dictionary[[table]]), tables[[table]], label = paste(name, table))
  }
  strings <- tree[["2"]][names(tree[["2"]]) == "5"]
  raw <- unname(vapply(strings, function(s) {
    if (is.list(s)) NA_character_ else rawToChar(otlp_raw_bytes(s))
  }, ""))
  literal <- unlist(otlp_canonical(w$bin, literal = TRUE)$dictionary$stringTable)
  shown <- !is.na(raw)
  expect_identical(raw[shown], literal[shown], label = paste(name, "strings"))
  expect_gt(sum(shown), length(raw) / 2)
}

test_that("what write_otlp() writes decodes with protoc and protobufjs, holding the v2 tables", {
  skip_if_no_otlp_oracle()
  skip_if_no_protoc()
  for (name in names(otlp_sample_files())) {
    w <- otlp_written(name)
    # protoc without a schema, and with ours: no unknown field.
    tree <- otlp_decode_raw(w$bin)
    expect_true(length(tree) > 0, label = name)
    expect_raw_tables(tree, w, name)
    decoded <- otlp_protoc_decode(w$bin)
    expect_false(any(grepl("^\\s*[0-9]+:", decoded)), label = paste(name, "unknown fields"))
    # protobufjs: no wire, index or verify error, entry 0 of every table its
    # zero value.
    check <- otlp_check(w$bin, strict = TRUE)[[1]]
    expect_true(check$ok, label = paste(name, "check"))
    expect_length(check$warnings, 0)
    # The observations it holds are the v2 tables' samples.
    expect_identical(
      observation_table(otlp_resolved_samples(w$bin)),
      observation_table(v2_observations(w$x)),
      label = name
    )
    # The JSON form: protobufjs makes it the binary form's message.
    expect_identical(otlp_same_message(otlp_to_binary(w$json), w$bin), character(), label = name)
  }
})

test_that("a Profile per sample type, stacks and strings stored once", {
  skip_if_no_otlp_oracle()
  w <- otlp_written("rprof/memory.out")
  m <- otlp_canonical(w$bin, literal = TRUE)
  profiles <- m$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles
  types <- dm::dm_get_tables(w$x)$sample_types
  expect_identical(length(profiles), nrow(types))
  d <- m$dictionary
  strings <- unlist(d$stringTable)
  expect_identical(strings[[1]], "")
  expect_false(anyDuplicated(strings) > 0)
  stacks <- vapply(d$stackTable, function(s) paste(unlist(s$locationIndices), collapse = " "), "")
  expect_false(anyDuplicated(stacks) > 0)
  tables <- c("mappingTable", "locationTable", "functionTable", "attributeTable", "stackTable")
  for (table in tables) {
    expect_length(d[[table]][[1]], 0)
  }
  # Rprof ticks: timestamps only for samples/count, values for the others.
  samples <- profiles[[1]]$samples
  expect_null(samples[[1]]$values)
  expect_false(is.null(samples[[1]]$timestampsUnixNano))
  expect_false(is.null(profiles[[2]]$samples[[1]]$values))
})

test_that("OTLP -> v2 -> OTLP gives the same profiles for every real file", {
  skip_if_no_otlp_oracle()
  files <- list(
    c("pyroscope", "otel-ebpf-profile.pb.bin"),
    c("pyroscope", "otel-ebpf-profile.pb.json"),
    c("async-profiler-generated", "burn.otlp.pb"),
    c("async-profiler-generated", "burn.otlp.derived.json"),
    c("otel-collector-contrib", "golden-profiles-roundtrip-expected.derived.pb"),
    c("otel-collector-contrib", "golden-profiles-roundtrip-expected.derived.json")
  )
  paths <- c(
    vapply(files, function(f) do.call(otlp_oracle_shared_file, as.list(f)), ""),
    otlp_sample_file("otep-0239.pb"), otlp_sample_file("otep-0239.json")
  )
  for (path in paths) {
    for (format in c("protobuf", "json")) {
      out <- tempfile(fileext = if (format == "json") ".json" else ".pb")
      write_otlp(read_otlp(path), out, format = format)
      expect_identical(
        otlp_same_profiles(out, path), character(),
        label = paste(basename(path), format)
      )
    }
  }
  # A file written from OTLP reads and writes back to the very same message.
  once <- tempfile(fileext = ".pb")
  twice <- tempfile(fileext = ".pb")
  ebpf_file <- otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin")
  write_otlp(read_otlp(ebpf_file), once)
  write_otlp(read_otlp(once), twice)
  expect_identical(otlp_same_message(twice, once), character())
  expect_same_profile(read_otlp(once), read_otlp(ebpf_file), source_uri = FALSE)
})

test_that("timestamps come back to the nanosecond", {
  skip_if_no_otlp_oracle()
  path <- otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin")
  out <- tempfile(fileext = ".pb")
  write_otlp(read_otlp(path), out)
  stamps <- function(p) sort(otlp_resolved_samples(p)$timestamp, method = "radix")
  expect_identical(stamps(out), stamps(path))
})

test_that("pprof -> OTLP -> pprof shows the same in go tool pprof -raw", {
  otlp_skip_if_no_go()
  files <- otlp_sample_files()[grepl("^(pprof|proto)", names(otlp_sample_files()))]
  # ... and a file with every pprof field: comments, drop and keep frames,
  # doc URL, default sample type, a build id, mapping flags, a folded
  # location, inlined frames and numeric labels with units.
  full <- read_pprof(files[["pprof/cpu.pb.gz"]])
  t <- dm::dm_get_tables(full)
  t$sources$drop_frames <- "runtime\\..*"
  t$sources$keep_frames <- "runtime\\.main"
  t$sources$doc_url <- "https://example.org/doc"
  t$sources$default_sample_type <- "samples"
  t$source_comments <- tibble::tibble(source_id = 1L, comment = c("first", "second"))
  t$mappings$build_id <- "abc123"
  t$mappings$has_inline_frames <- TRUE
  t$locations$is_folded[2] <- TRUE
  t$sample_labels <- rbind(t$sample_labels, tibble::tibble(
    sample_id = t$samples$sample_id[1:3], key = "bytes", value = NA_character_,
    num = c(1024, 2048, 4096), num_unit = "bytes", kind = NA_character_
  ))
  t$sample_labels <- t$sample_labels[order(t$sample_labels$sample_id), ]
  full <- do.call(new_profile_v2, t)
  full_path <- tempfile(fileext = ".pb.gz")
  write_pprof(full, full_path)
  files <- c(files, full = full_path)
  for (name in names(files)) {
    x <- read_pprof(files[[name]])
    otlp <- tempfile(fileext = ".pb")
    back <- tempfile(fileext = ".pb.gz")
    write_otlp(x, otlp)
    write_pprof(read_otlp(otlp), back)
    expect_identical(go_pprof("raw", back), go_pprof("raw", files[[name]]), label = name)
  }
  # The collector's attribute keys carry the pprof fields.
  skip_if_no_otlp_oracle()
  otlp <- tempfile(fileext = ".pb")
  write_otlp(read_pprof(full_path), otlp)
  m <- otlp_canonical(otlp, literal = TRUE)
  keys <- unlist(m$dictionary$stringTable)
  expect_true(all(c(
    "pprof.profile.drop_frames", "pprof.profile.keep_frames", "pprof.profile.doc_url",
    "pprof.profile.comment.0", "pprof.profile.comment.1",
    "process.executable.build_id.gnu", "pprof.mapping.has_functions",
    "pprof.mapping.has_inline_frames", "pprof.location.is_folded"
  ) %in% keys))
  scope <- m$resourceProfiles[[1]]$scopeProfiles[[1]]$scope
  expect_identical(scope$attributes[[1]]$key, "pprof.scope.default_sample_type")
  expect_identical(scope$attributes[[1]]$value$stringValue, "samples")
})

test_that("attributes of every kind, with units, and links round-trip", {
  x <- read_otlp(otlp_sample_file("otep-0239.pb"))
  t <- dm::dm_get_tables(x)
  kinds <- tibble::tibble(
    sample_id = t$samples$sample_id[[1]],
    key = c("s", "i", "big", "b", "d", "nan", "bytes", "array", "kvlist", "none"),
    value = c(
      "text", NA, "9007199254740993", "true", NA, NA, "00ff10",
      '{"arrayValue":{"values":[{"intValue":"1"},{"stringValue":"a"},{}]}}',
      '{"kvlistValue":{"values":[{"key":"k","value":{"doubleValue":-2.5}}]}}', NA
    ),
    num = c(NA, 42, 9007199254740992, NA, 0.1, NA, NA, NA, NA, NA),
    num_unit = c(NA, "bytes", NA, NA, "s", NA, NA, NA, NA, NA),
    kind = c(NA, NA, "int", "bool", "double", "double", "bytes", "array", "kvlist", "empty")
  )
  t$sample_labels <- rbind(t$sample_labels, kinds)
  t$sample_labels <- t$sample_labels[order(t$sample_labels$sample_id), ]
  t$samples$trace_id[[2]] <- "0a0b0c0d0a0b0c0d0a0b0c0d0a0b0c0d"
  t$samples$span_id[[2]] <- "1111111111111111"
  y <- do.call(new_profile_v2, t)
  for (format in c("protobuf", "json")) {
    out <- tempfile()
    write_otlp(y, out, format = format)
    z <- read_otlp(out)
    expect_same_profile(z, y, source_uri = FALSE, label = format)
    expect_identical(
      dm::dm_get_tables(z)$sample_labels$kind, dm::dm_get_tables(y)$sample_labels$kind
    )
  }
  # A value that is not of its kind is refused, naming it.
  t$sample_labels$value[t$sample_labels$key == "b"] <- "maybe"
  expect_error(
    write_otlp(do.call(new_profile_v2, t), tempfile()),
    class = "profile_error_invalid", regexp = "maybe"
  )
})

test_that("the profile read from OTLP works with the other functions of the package", {
  x <- read_otlp(otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin"))
  y <- read_otlp(otlp_sample_file("otep-0239.pb"))
  rprof <- read_rprof(system.file("samples", "rprof", "1.out", package = "profile"))
  both <- combine_profiles(x, y, rprof)
  expect_silent(validate_profile(both))
  expect_identical(nrow(dm::dm_get_tables(both)$resources), 78L)
  s <- profile_summary(x, type = "off_cpu")
  expect_s3_class(s, "profile_summary")
  focused <- profile_focus(x, "do_syscall_64")
  expect_silent(validate_profile(focused))
  expect_lt(nrow(dm::dm_get_tables(focused)$samples), nrow(dm::dm_get_tables(x)$samples))
  windowed <- profile_window(x, from = 1, to = 2)
  expect_true(all(dm::dm_get_tables(windowed)$samples$time >= 1))
  out <- tempfile(fileext = ".pb")
  write_otlp(both, out)
  expect_identical(profile_canonical(read_otlp(out))$samples, profile_canonical(both)$samples)
  for (writer in list(write_pprof, write_rprof, write_speedscope, write_folded)) {
    expect_silent(writer(x, tempfile()))
  }
})

test_that("profiles read from OTLP append to a database, each with its resources and scopes", {
  otlp_skip_if_no_rsqlite()
  y <- read_otlp(otlp_sample_file("otep-0239.pb"))
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  profile_db_append(con, y)
  profile_db_append(con, y)
  tables <- function(t) DBI::dbReadTable(con, t)
  # Real SQLite holds two resources and two scopes (the second append's keys
  # follow the first's), each source in its own scope, as combining the two does.
  both <- dm::dm_get_tables(combine_profiles(y, y))
  expect_identical(nrow(tables("resources")), nrow(both$resources))
  expect_identical(sort(tables("resources")$resource_id), 1:2)
  expect_identical(sort(tables("scopes")$resource_id), 1:2)
  expect_identical(sort(unique(tables("sources")$scope_id)), 1:2)
  expect_identical(
    tables("resources")$schema_url, as.character(both$resources$schema_url)
  )
})

# `go tool pprof -top` of `path`: its standard output and error, as lines.
go_top_with_messages <- function(path) {
  pprof <- go_pprof_program()
  suppressWarnings(system2(pprof[[1]], c(pprof[-1], "-top", shQuote(path)),
    stdout = TRUE, stderr = TRUE
  ))
}

# The mappings of `go tool pprof -raw` of `path`: their lines after "Mappings".
go_mappings <- function(path) {
  lines <- go_pprof("raw", path)
  lines[-seq_len(match("Mappings", lines))]
}

# Each sample type's total as go tool pprof shows it (the sum of -top's flat
# column, every node shown) and as the profile holds it.
expect_go_totals <- function(x, path, label) {
  types <- go_sample_types(path)
  values <- dm::dm_get_tables(x)$sample_values
  expect_setequal(paste(types$type, types$unit), unique(paste(values$type, values$unit)))
  for (i in seq_len(nrow(types))) {
    ours <- sum(values$value[values$type == types$type[[i]] & values$unit == types$unit[[i]]])
    theirs <- sum(go_top(path, types$type[[i]], types$unit[[i]])$flat)
    expect_equal(theirs, ours, label = paste(label, types$type[[i]]))
  }
}

test_that("write_pprof() of real OTLP files: mappings of their own, nothing to symbolize", {
  otlp_skip_if_no_go()
  # The eBPF profiler's file: every frame in a mapping of a real binary, which
  # the profiler symbolized where it ran. go tool pprof names the kernel as
  # the main binary and looks for no binary here.
  ebpf <- read_otlp(otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin"))
  path <- tempfile(fileext = ".pb.gz")
  write_pprof(ebpf, path)
  out <- go_top_with_messages(path)
  expect_false(any(grepl("symbolization failed", out, fixed = TRUE)), label = "eBPF -top")
  expect_false(any(grepl("filenames not available", out, fixed = TRUE)), label = "eBPF -top")
  expect_true("File: vmlinux" %in% out)
  mappings <- go_mappings(path)
  binaries <- dm::dm_get_tables(ebpf)$mappings$filename
  expect_setequal(sub("^[0-9]+: \\S+ (\\S+) .*$", "\\1", mappings), binaries)
  expect_true(all(grepl("[FN]", mappings, fixed = TRUE)))
  expect_go_totals(ebpf, path, "eBPF")

  # async-profiler's Java frames have no mapping, and the file names no
  # program: a mapping named [otlp] holds them, never [R].
  java <- read_otlp(otlp_oracle_shared_file("async-profiler-generated", "burn.otlp.pb"))
  path <- tempfile(fileext = ".pb.gz")
  write_pprof(java, path)
  out <- go_top_with_messages(path)
  expect_true("File: [otlp]" %in% out)
  expect_false(any(grepl("[R]|symbolization failed|not available", out)))
  expect_match(go_mappings(path), "^1: \\S+ \\[otlp\\] +\\[FN\\]$")
  expect_go_totals(java, path, "Java")
  # The same as async-profiler's own pprof file of the recording.
  pprof <- otlp_oracle_shared_file("async-profiler-generated", "burn.pprof.pb")
  expect_identical(go_top(path, "cpu", "count"), go_top(pprof, "cpu", "count"))

  # A resource naming its program names the mapping, as a pprof file names
  # its binary.
  t <- dm::dm_get_tables(java)
  t$resource_attributes <- tibble::tibble(
    resource_id = t$scopes$resource_id[[1]], key = "process.executable.name", value = "java",
    num = NA_real_, num_unit = NA_character_, kind = NA_character_
  )
  path <- tempfile(fileext = ".pb.gz")
  write_pprof(do.call(new_profile_v2, t), path)
  expect_true("File: java" %in% go_top_with_messages(path))
})
