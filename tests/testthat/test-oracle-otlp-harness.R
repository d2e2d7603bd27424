# The OTLP oracle itself is right (issue 23): its tools (tests/otlp, protoc)
# and its R readings (helper-otlp-oracle.R, helper-otlp-semantics.R) checked
# on the real files of shared/otlp against what their producers and Pyroscope
# say. Nothing here uses read_otlp() or write_otlp().

ebpf_bin <- function() otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin")
ebpf_json <- function() otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.json")
burn <- function(ext) otlp_oracle_shared_file("async-profiler-generated", paste0("burn.", ext))
golden <- function(ext) {
  name <- paste0("golden-profiles-roundtrip-expected.derived.", ext)
  otlp_oracle_shared_file("otel-collector-contrib", name)
}
pyroscope_out <- function(kind) {
  otlp_oracle_shared_file("pyroscope", paste0("otel-ebpf-profile-", kind, ".out.json"))
}
history_files <- function() {
  list.files(file.path(otlp_oracle_shared_dir(), "pyroscope", "history"), full.names = TRUE)
}
same_bytes <- function(a, b) {
  identical(readBin(a, "raw", file.size(a)), readBin(b, "raw", file.size(b)))
}

test_that("protobufjs turns Go's protojson of the eBPF capture into Go's bytes, and back", {
  skip_if_no_otlp_oracle()
  # Go's proto.Marshal and protojson wrote the pair from one message: our
  # schema's field numbers and types give the same bytes for every field the
  # capture uses.
  bin <- otlp_to_binary(ebpf_json(), strict = TRUE)
  expect_equal(file.size(bin), 105244)
  expect_true(same_bytes(bin, ebpf_bin()))
  back <- jsonlite::fromJSON(otlp_to_json(ebpf_bin()), simplifyVector = FALSE)
  expect_identical(back, jsonlite::fromJSON(ebpf_json(), simplifyVector = FALSE))
})

test_that("the collector's golden file converts to the same message as its binary form", {
  skip_if_no_otlp_oracle()
  skip_if_no_protoc()
  bin <- otlp_to_binary(golden("json"), strict = TRUE)
  differences <- otlp_raw_compare(otlp_decode_raw(bin), otlp_decode_raw(golden("pb")))
  expect_identical(differences, character())
  check <- otlp_check(golden("pb"))[[1]]
  expect_true(check$ok)
  # It breaks the zero-entry rule; the check says so without calling it broken.
  expect_true(any(grepl("mappingTable[0] is not the zero value", check$warnings, fixed = TRUE)))
  expect_true(any(grepl("locationTable[0] is not the zero value", check$warnings, fixed = TRUE)))
  # Read literally, as the collector does: index 0 is the first entry.
  canon <- otlp_canonical(golden("pb"))
  p <- canon$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles[[1]]
  expect_identical(p$sampleType, list(type = "samples", unit = "count"))
  expect_identical(p$samples[[1]]$stack[[1]]$address, "111")
})

test_that("strict OTLP/JSON refuses unknown keys and takes snake_case and hex ids", {
  skip_if_no_otlp_oracle()
  json <- withr::local_tempfile(fileext = ".json")
  writeLines(paste0(
    '{"resource_profiles": [], "dictionary": {"string_table": [""], "link_table": [{}, ',
    '{"trace_id": "0102030405060708090a0b0c0d0e0f10", "spanId": "9999999999999999"}]}}'
  ), json)
  back <- jsonlite::fromJSON(otlp_to_json(otlp_to_binary(json)), simplifyVector = FALSE)
  expect_identical(
    back$dictionary$linkTable[[2]],
    list(traceId = "0102030405060708090a0b0c0d0e0f10", spanId = "9999999999999999")
  )
  writeLines('{"resourceProfiles": [], "dictionaryy": {}}', json)
  expect_error(otlp_to_binary(json, strict = TRUE), "unknown field \"dictionaryy\"")
  expect_no_error(otlp_to_binary(json, strict = FALSE))
  writeLines('{"dictionary": {"linkTable": [{"traceId": "AQIDBA=="}]}}', json)
  expect_error(otlp_to_binary(json), "not a hex string")
})

test_that("the checker reads the current real files cleanly and counts what they hold", {
  skip_if_no_otlp_oracle()
  reports <- otlp_check(c(ebpf_bin(), ebpf_json(), burn("otlp.pb")))
  for (r in reports) {
    expect_true(r$ok, label = r$file)
    expect_length(r$unknownFields, 0)
  }
  e <- reports[[1]]$counts
  expect_identical(
    c(e$resourceProfiles, e$profiles, e$samples, e$observations),
    c(77L, 82L, 317L, 5321L)
  )
  expect_identical(reports[[2]]$counts, e)
  b <- reports[[3]]$counts
  # async-profiler: 14 samples, 247 events (PROVENANCE.md), padded varints read.
  expect_identical(c(b$samples, b$observations), c(14L, 247L))
})

test_that("every older draft and corrupted file of history/ fails the check", {
  skip_if_no_otlp_oracle()
  files <- history_files()
  expect_length(files, 5)
  reports <- otlp_check(files)
  for (r in reports) {
    expect_false(r$ok, label = basename(r$file))
    expect_gt(length(r$wireErrors) + length(r$unknownFields), 0)
  }
})

test_that("protoc --decode_raw (no schema) agrees with protobufjs on the eBPF capture", {
  skip_if_no_otlp_oracle()
  skip_if_no_protoc()
  counts <- otlp_raw_counts(otlp_decode_raw(ebpf_bin()))
  tables <- otlp_check(ebpf_bin())[[1]]$counts$tables
  expect_identical(counts[["1"]], 77L)
  expect_identical(counts[["1.2.2"]], 82L) # resource_profiles.scope_profiles.profiles
  dictionary <- c(
    mappingTable = "2.1", locationTable = "2.2", functionTable = "2.3", linkTable = "2.4",
    stringTable = "2.5", attributeTable = "2.6", stackTable = "2.7"
  )
  for (name in names(dictionary)) {
    expect_identical(counts[[dictionary[[name]]]], tables[[name]], label = name)
  }
  # The string table as protoc prints it, as bytes, is protobufjs's.
  tree <- otlp_decode_raw(burn("otlp.pb"))
  strings <- tree[["2"]][names(tree[["2"]]) == "5"]
  literal <- otlp_canonical(burn("otlp.pb"), literal = TRUE)
  expect_identical(
    unname(vapply(strings, function(s) {
      if (is.list(s)) NA_character_ else rawToChar(otlp_raw_bytes(s))
    }, "")),
    unlist(literal$dictionary$stringTable)
  )
})

test_that("protoc --decode with our schema finds no unknown field in current files, some in v1.8", {
  skip_if_no_otlp_oracle()
  skip_if_no_protoc()
  unknown <- function(lines) sum(grepl("^ *[0-9]+[:{ ]", lines))
  expect_identical(unknown(otlp_protoc_decode(ebpf_bin())), 0L)
  expect_identical(unknown(otlp_protoc_decode(burn("otlp.pb"))), 0L)
  v18 <- otlp_oracle_shared_file("pyroscope", "history", "otel-ebpf-profile.otlp-v1.8.0.pb.bin.gz")
  expect_gt(unknown(otlp_protoc_decode(v18)), 100)
})

test_that("the async-profiler OTLP file has its pprof and folded siblings' stacks and totals", {
  skip_if_no_otlp_oracle()
  otlp <- otlp_resolved_samples(burn("otlp.pb"))
  expect_identical(nrow(otlp), 247L)
  expect_true(all(otlp$value == 1))
  expect_true(all(!is.na(otlp$timestamp)))
  expect_identical(unique(otlp$type), "cpu")
  pprof <- pprof_go_stacks(burn("pprof.pb"))
  folded <- folded_stacks(burn("collapsed"))
  expect_identical(sum(pprof$value), 247)
  expect_identical(sum(folded$value), 247)
  expect_identical(folded$value[order(folded$value)], c(23, 51, 173))
  expect_identical(stack_totals(otlp$stack, otlp$value), stack_totals(pprof$stack, pprof$value))
  expect_identical(stack_totals(otlp$stack, otlp$value), stack_totals(folded$stack, folded$value))
  expect_identical(
    function_totals(otlp$stack, otlp$value), function_totals(folded$stack, folded$value)
  )
  # Line numbers too: the folded file writes name:line per frame.
  lines <- vapply(otlp$frames, function(f) paste0(f$name, ":", f$line, collapse = ";"), "")
  expect_identical(stack_totals(lines, otlp$value), stack_totals(folded$stack_lines, folded$value))
  # Threads as sample attributes.
  expect_setequal(
    unique(otlp$attributes), c("thread.name=[main tid=1]", "thread.name=[worker-1 tid=23]")
  )
})

test_that("the eBPF capture's per-function totals are Pyroscope's query results", {
  skip_if_no_otlp_oracle()
  x <- otlp_resolved_samples(ebpf_bin())
  expect_identical(nrow(x), 5321L)
  # Pyroscope's service_name="unknown_service": the processes without
  # process.executable.name (the others are named after their executable).
  unknown <- !grepl("process.executable.name=", x$resource, fixed = TRUE)
  cpu <- x[unknown & x$type == "samples", ]
  off <- x[unknown & x$type == "off_cpu", ]
  # CPU: timestamps-only samples, each event worth one period (50 ms).
  expect_identical(nrow(cpu), 10L)
  expect_true(all(is.na(cpu$timestamp) == FALSE & cpu$value == 1 & cpu$period == 5e7))
  expect_identical(sum(cpu$value * cpu$period), 5e8)
  expect_identical(
    function_totals(cpu$stack, cpu$value * cpu$period),
    pyroscope_function_totals(pyroscope_out("cpu"))
  )
  # Off-CPU: per-event values in nanoseconds.
  expect_identical(sum(off$value), 250725419905)
  expect_identical(
    function_totals(off$stack, off$value),
    pyroscope_function_totals(pyroscope_out("offcpu"))
  )
  # The executables' processes that Pyroscope's query left out.
  expect_identical(sum(x$value[!unknown & x$type == "off_cpu"]), 16576829426)
})

test_that("canonical dumps do not depend on the order of the dictionary's entries", {
  skip_if_no_otlp_oracle()
  literal_text <- otlp_canonical_text(burn("otlp.pb"), literal = TRUE)
  literal <- jsonlite::fromJSON(literal_text, simplifyVector = FALSE)
  shuffled <- otlp_shuffle_dictionary(literal, seed = 23)
  json <- withr::local_tempfile(fileext = ".json")
  writeLines(jsonlite::toJSON(shuffled, auto_unbox = TRUE, digits = NA), json)
  bin <- otlp_to_binary(json)
  expect_false(identical(otlp_canonical_text(bin, literal = TRUE), literal_text))
  expect_identical(otlp_canonical_text(bin), otlp_canonical_text(burn("otlp.pb")))
  # Merging: the 14 uncombined samples are 3 identities (stack, thread), as
  # the folded sibling has 3 stacks.
  merged <- otlp_canonical(burn("otlp.pb"), merge = TRUE, sort = TRUE)
  samples <- merged$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles[[1]]$samples
  expect_length(samples, 3)
  expect_identical(sum(lengths(lapply(samples, `[[`, "timestampsUnixNano"))), 247L)
  expect_identical(
    otlp_canonical_text(bin, merge = TRUE, sort = TRUE),
    otlp_canonical_text(burn("otlp.pb"), merge = TRUE, sort = TRUE)
  )
})

test_that("JSON lines, gzip and the padded varints of async-profiler all read", {
  skip_if_no_otlp_oracle()
  dir <- withr::local_tempdir()
  gz <- file.path(dir, "burn.pb.gz")
  con <- gzfile(gz, "wb")
  writeBin(readBin(burn("otlp.pb"), "raw", file.size(burn("otlp.pb"))), con)
  close(con)
  expect_identical(otlp_canonical_text(gz), otlp_canonical_text(burn("otlp.pb")))
  # Re-encoding drops the padding (2596 bytes written, 2522 minimal without the
  # explicit zero fields) and keeps the meaning.
  again <- otlp_to_binary(otlp_to_json(burn("otlp.pb")))
  expect_identical(file.size(again), 2522)
  expect_identical(otlp_canonical_text(again), otlp_canonical_text(burn("otlp.pb")))
  lines <- file.path(dir, "two.jsonl")
  one <- readLines(otlp_to_json(burn("otlp.pb")))
  writeLines(c(one, one), lines)
  two <- otlp_canonical(lines)
  expect_length(two$resourceProfiles, 2)
  second <- otlp_to_binary(lines, line = 2)
  expect_identical(otlp_canonical_text(second), otlp_canonical_text(burn("otlp.pb")))
  expect_error(otlp_to_binary(lines), "holds 2 messages")
})

test_that("the mutation generator is deterministic and its labelled defects are real", {
  skip_if_no_otlp_oracle()
  seeds <- c(ebpf_bin(), burn("otlp.pb"), golden("pb"))
  dir <- withr::local_tempdir()
  cases <- otlp_mutated_cases(seeds, seed = 5, from = 0, to = 400, dir = file.path(dir, "a"))
  expect_identical(nrow(cases), 400L)
  again <- otlp_mutated_cases(seeds, seed = 5, from = 390, to = 400, dir = file.path(dir, "b"))
  expect_identical(unname(tools::md5sum(again$path)), unname(tools::md5sum(cases$path[391:400])))
  kinds <- sub("[+]gzip$", "", cases$kind)
  expect_true(all(c("index", "lengths", "wiretype", "truncate", "bitflip", "length") %in% kinds))
  reports <- otlp_check(cases$path)
  defect <- cases$defect
  index_errors <- vapply(reports, function(r) {
    paste(c(r$indexErrors, r$wireErrors), collapse = "\n")
  }, "")
  ok <- vapply(reports, `[[`, TRUE, "ok")
  found <- function(pattern, which) grepl(pattern, index_errors[which])
  past <- defect == "index past the table"
  negative <- defect == "negative index"
  expect_gt(sum(past), 10)
  expect_gt(sum(negative), 10)
  expect_true(all(!ok[past | negative]))
  neither <- defect == "sample with neither values nor timestamps"
  expect_true(all(found("neither values nor timestamps", neither)))
  mismatch <- defect == "values and timestamps of different lengths"
  expect_true(all(found("values but [0-9]+ timestamps", mismatch)))
  wire <- defect == "wrong wire type"
  expect_true(all(found("wire type", wire)))
  expect_true(all(!ok[defect == "invalid UTF-8"]))
})

test_that("the OTEP 0239 example reads, through the oracle, as the OTEP describes it", {
  skip_if_no_otlp_oracle()
  pb <- otlp_sample_file("otep-0239.pb")
  json <- otlp_sample_file("otep-0239.json")
  expect_true(otlp_check(pb)[[1]]$ok)
  expect_length(otlp_check(pb)[[1]]$warnings, 0)
  expect_identical(otlp_canonical_text(json), otlp_canonical_text(pb))
  x <- otlp_resolved_samples(pb)
  expect_identical(nrow(x), 2L)
  # Folded foo;bar;baz is root first; stacks are leaf first.
  expect_identical(x$stack, c("baz;bar;foo", "bar;foo"))
  expect_identical(x$value, c(100, 200))
  expect_identical(x$attributes, c("region=us", "region=us"))
  expect_identical(x$trace_id, c("01020304010203040102030401020304", NA))
  expect_identical(x$span_id, c("9999999999999999", NA))
  expect_identical(x$timestamp, c("1687841528000000", NA))
  expect_identical(unique(x$type), "cpu")
  expect_identical(unique(x$unit), "samples")
  expect_identical(unique(x$profile_id), "0102030405060708090a0b0c0d0e0f10")
  expect_identical(unique(x$time_unix_nano), "1687841520000000")
  expect_identical(unique(x$duration_nano), "10000000")
  expect_identical(unique(x$resource_schema_url), "todo")
  # protoc, without a schema: the first sample's fields 1..5 (stack_index,
  # attribute_indices, link_index, values, timestamps_unix_nano).
  skip_if_no_protoc()
  tree <- otlp_decode_raw(pb)
  sample <- tree[["1"]][["2"]][["2"]][["2"]]
  expect_identical(names(sample), c("1", "2", "3", "4", "5"))
  expect_identical(as.character(sample[["1"]]), "1")
  expect_identical(as.character(sample[["4"]]), "d") # values = [100], packed: the byte 0x64
})

test_that("each damaged OTEP file has exactly the defect DEFECTS.tsv names", {
  skip_if_no_otlp_oracle()
  defects <- otlp_defect_files()
  expect_setequal(
    unique(defects$defect),
    c(
      "dangling index", "negative index", "stack index past the table",
      "string index past the table", "values and timestamps of different lengths",
      "sample with neither values nor timestamps", "wrong wire type", "truncated"
    )
  )
  reports <- otlp_check(defects$path)
  for (i in seq_len(nrow(defects))) {
    r <- reports[[i]]
    d <- defects[i, ]
    expect_false(r$ok, label = d$file)
    problems <- unlist(c(r$indexErrors, r$wireErrors))
    expect_length(problems, 1)
    if (nzchar(d$table)) {
      table <- gsub("_([a-z])", "\\U\\1", d$table, perl = TRUE)
      expect_match(problems, paste0(" ", d$index, " .*", table), label = d$file)
    }
  }
  wire <- reports[[which(defects$defect == "wrong wire type")]]
  expect_match(wire$wireErrors, "stackIndex .*wire type 2")
})

test_that("otlp_same_message() and otlp_same_profiles() tell forms and groupings apart", {
  skip_if_no_otlp_oracle()
  # The same message in its two forms (the eBPF capture's pair).
  expect_identical(otlp_same_message(ebpf_bin(), ebpf_json()), character())
  # async-profiler writes explicit zeros; OTLP/JSON leaves them out: the same.
  expect_identical(otlp_same_message(burn("otlp.pb"), otlp_to_json(burn("otlp.pb"))), character())
  expect_gt(length(otlp_same_message(burn("otlp.pb"), ebpf_bin())), 0)
  # Uncombined samples against the same observations combined, with values
  # of 1 written out and the dictionary shuffled: the same profiles, not the
  # same message.
  literal <- otlp_canonical(burn("otlp.pb"), literal = TRUE)
  samples <- literal$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles[[1]]$samples
  key <- vapply(samples, function(s) paste(s$stackIndex, unlist(s$attributeIndices)), "")
  combined <- lapply(split(samples, factor(key, unique(key))), function(group) {
    times <- unlist(lapply(group, `[[`, "timestampsUnixNano"))
    s <- group[[1]]
    s$timestampsUnixNano <- as.list(times)
    s$values <- as.list(rep("1", length(times)))
    s
  })
  literal$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles[[1]]$samples <- unname(combined)
  json <- withr::local_tempfile(fileext = ".json")
  writeLines(
    jsonlite::toJSON(otlp_shuffle_dictionary(literal, seed = 1), auto_unbox = TRUE, digits = NA),
    json
  )
  expect_length(combined, 3)
  expect_gt(length(otlp_same_message(json, burn("otlp.pb"))), 0)
  expect_identical(otlp_same_profiles(json, burn("otlp.pb")), character())
  # One timestamp changed: different profiles.
  first <- literal$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles[[1]]$samples[[1]]
  first$timestampsUnixNano[[1]] <- "1"
  literal$resourceProfiles[[1]]$scopeProfiles[[1]]$profiles[[1]]$samples[[1]] <- first
  writeLines(jsonlite::toJSON(literal, auto_unbox = TRUE, digits = NA), json)
  expect_match(otlp_same_profiles(json, burn("otlp.pb"))[[1]], "first difference")
})

test_that("the drafts' layouts tell each history file's draft, and where bytes cannot tell", {
  skip_if_no_otlp_oracle()
  history <- history_files()
  current <- c(ebpf_bin(), burn("otlp.pb"), golden("pb"), otlp_sample_file("otep-0239.pb"))
  reports <- otlp_drafts(c(history, current))
  clean <- lapply(reports, `[[`, "clean")
  for (f in history) {
    # The draft in the file's name (v1.5.0 -> v1.5) is among the clean ones,
    # the current layout is not.
    draft <- sub("^.*otlp-(v[0-9]+[.][0-9]+)[.]0[.].*$", "\\1", basename(f))
    expect_true(draft %in% clean[[f]], label = basename(f))
    expect_false("v1.10" %in% clean[[f]], label = basename(f))
  }
  # v1.5 and v1.7 files are told apart by their bytes; v1.8 and v1.9 are not.
  expect_identical(unname(unlist(clean[grepl("v1[.]5[.]0", names(clean))])), "v1.5")
  expect_identical(unique(unlist(clean[grepl("v1[.]7[.]0", names(clean))])), "v1.7")
  expect_identical(unique(unlist(clean[grepl("v1[.]8[.]0", names(clean))])), c("v1.8", "v1.9"))
  # Current files with values are only current; timestamps-only ones
  # (async-profiler, the collector's) also parse under the v1.8/v1.9 layouts,
  # where their attribute indices would be read as values.
  expect_identical(clean[[ebpf_bin()]], "v1.10")
  expect_identical(clean[[otlp_sample_file("otep-0239.pb")]], "v1.10")
  expect_identical(clean[[burn("otlp.pb")]], c("v1.8", "v1.9", "v1.10"))
  expect_identical(clean[[golden("pb")]], c("v1.8", "v1.9", "v1.10"))
})

test_that("v2_observations() reads the v2 tables as otlp_resolved_samples() reads OTLP", {
  # On a pprof file, against Go's parser (no OTLP reader involved): stacks,
  # values and labels per sample type.
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  obs <- v2_observations(x)
  go <- pprof_go_stacks(sample_path("pprof", "cpu.pb.gz"))
  cpu <- obs[obs$type == "cpu", ]
  expect_identical(stack_totals(cpu$stack, cpu$value), stack_totals(go$stack, go$values[, 2]))
  expect_true(any(grepl("^phase=compute, worker=fib$", obs$attributes)))
  expect_identical(observation_table(obs), observation_table(obs[rev(seq_len(nrow(obs))), ]))
  reversed <- obs[rev(seq_len(nrow(obs))), ]
  expect_false(identical(obs$stack, reversed$stack))
  # Exact nanosecond differences, also past 2^53 ns since the epoch.
  expect_identical(
    otlp_nanos_between(c("1795626774441110136", "1"), c("1795626775525595012", NA)),
    c(1084484876, NA)
  )
})
