# read_otlp() on the real files of the field (shared/otlp), judged by the
# oracle of helper-otlp-oracle.R / helper-otlp-semantics.R (protobufjs with
# our own schema, Pyroscope's query results, Go's pprof parser, folded
# stacks), never by read_otlp() itself.

ebpf <- function(ext = "pb.bin") {
  otlp_oracle_shared_file("pyroscope", paste0("otel-ebpf-profile.", ext))
}

burn <- function(ext) otlp_oracle_shared_file("async-profiler-generated", paste0("burn.", ext))

pyroscope_out <- function(kind) {
  otlp_oracle_shared_file("pyroscope", paste0("otel-ebpf-profile-", kind, ".out.json"))
}

test_that("the eBPF capture reads: binary and Go's protojson alike, every observation", {
  x <- read_otlp(ebpf())
  expect_silent(validate_profile(x))
  t <- dm::dm_get_tables(x)
  expect_identical(nrow(t$resources), 77L)
  # 82 Profiles: the CPU and off-CPU Profiles of a process differ sample by
  # sample, so each is a source.
  expect_identical(nrow(t$sources), 82L)
  expect_identical(nrow(t$samples), 5321L)
  expect_identical(unique(t$sources$source_type), "otlp")
  expect_identical(
    sort(unique(paste(t$sample_types$type, t$sample_types$unit))),
    c("off_cpu nanoseconds", "samples count")
  )
  json <- read_otlp(ebpf("pb.json"))
  expect_same_profile(json, x, source_uri = FALSE)
  # The oracle's reading of the same file, observation by observation.
  skip_if_no_otlp_oracle()
  ours <- v2_observations(x)
  oracle <- otlp_resolved_samples(ebpf())
  expect_identical(observation_table(ours), observation_table(oracle))
  expect_identical(
    observation_table(ours, c(observation_columns, "time")),
    observation_table(oracle, c(observation_columns, "time"))
  )
})

test_that("the eBPF capture's per-function totals are Pyroscope's query results", {
  otlp_skip_if_no_jsonlite()
  x <- read_otlp(ebpf())
  t <- dm::dm_get_tables(x)
  # Pyroscope's service_name="unknown_service": the processes whose resource
  # has no process.executable.name.
  named <- t$resource_attributes$resource_id[t$resource_attributes$key == "process.executable.name"]
  resource_of <- t$scopes$resource_id[match(t$sources$scope_id, t$scopes$scope_id)]
  sources <- t$sources$source_id[!resource_of %in% named]
  obs <- v2_observations(x)
  obs <- obs[obs$source_id %in% sources, ]
  period <- t$sources$period[match(obs$source_id, t$sources$source_id)]
  cpu <- obs[obs$type == "samples", ]
  expect_identical(nrow(cpu), 10L)
  cpu_ns <- cpu$value * period[obs$type == "samples"]
  expect_identical(
    function_totals(cpu$stack, cpu_ns),
    pyroscope_function_totals(pyroscope_out("cpu"))
  )
  off <- obs[obs$type == "off_cpu", ]
  expect_identical(sum(off$value), 250725419905)
  expect_identical(
    function_totals(off$stack, off$value),
    pyroscope_function_totals(pyroscope_out("offcpu"))
  )
  # profile_summary() of the off-CPU time of those processes gives the same
  # self time per function name.
  y <- dm::dm_filter(x, sources = source_id %in% !!sources)
  s <- profile_summary(y, type = "off_cpu", n = Inf, by = "function")
  ours <- tapply(s$self, s$name, sum)
  ours <- ours[ours > 0]
  pyro <- pyroscope_function_totals(pyroscope_out("offcpu"))
  pyro <- stats::setNames(pyro$self, pyro$name)[pyro$self > 0]
  expect_identical(sort(names(ours)), sort(names(pyro)))
  expect_equal(as.numeric(ours[sort(names(ours))]), as.numeric(pyro[sort(names(pyro))]))
})

test_that("the async-profiler file has its pprof and folded siblings' stacks and totals", {
  otlp_skip_if_no_jsonlite()
  x <- read_otlp(burn("otlp.pb"))
  t <- dm::dm_get_tables(x)
  # Padded varints, timestamps-only samples, samples of equal identity not
  # combined: 14 samples of 247 timestamps, one value of 1 each.
  expect_identical(nrow(t$samples), 247L)
  expect_true(all(t$sample_values$value == 1))
  expect_identical(t$sample_types$type, "cpu")
  expect_identical(t$sample_types$unit, "count")
  expect_false(anyNA(t$samples$time))
  # In the order of their timestamps.
  expect_false(is.unsorted(t$samples$time))
  obs <- v2_observations(x)
  folded <- folded_stacks(burn("collapsed"))
  expect_identical(stack_totals(obs$stack, obs$value), stack_totals(folded$stack, folded$value))
  expect_identical(
    function_totals(obs$stack, obs$value), function_totals(folded$stack, folded$value)
  )
  otlp_skip_if_no_go()
  pprof <- pprof_go_stacks(burn("pprof.pb"))
  expect_identical(stack_totals(obs$stack, obs$value), stack_totals(pprof$stack, pprof$value))
  # ... and so does the file write_pprof() makes of it, for go tool pprof.
  out <- tempfile(fileext = ".pb.gz")
  write_pprof(x, out)
  ours <- pprof_go_stacks(out)
  expect_identical(stack_totals(ours$stack, ours$value), stack_totals(pprof$stack, pprof$value))
})

test_that("the collector's golden file reads with its indices taken literally", {
  x <- read_otlp(otlp_oracle_shared_file(
    "otel-collector-contrib", "golden-profiles-roundtrip-expected.derived.pb"
  ))
  t <- dm::dm_get_tables(x)
  # sampleType has unitStrindex 1 only: type = string_table[0] = "samples".
  expect_identical(t$sample_types$type, "samples")
  expect_identical(t$sample_types$unit, "count")
  # stack_table[0] holds location 0, which has address 111 and an attribute.
  expect_identical(t$locations$address, "0x6f")
  expect_identical(t$location_attributes$key, "profile.frame.type")
  expect_identical(t$location_attributes$value, "native")
  expect_identical(t$source_attributes$key, "host.id")
  expect_identical(t$sample_values$value, 1)
  expect_identical(t$samples$time, 0)
  json <- read_otlp(otlp_oracle_shared_file(
    "otel-collector-contrib", "golden-profiles-roundtrip-expected.derived.json"
  ))
  expect_same_profile(json, x, source_uri = FALSE)
})

test_that("the OTEP 0239 example reads as the OTEP describes it", {
  x <- read_otlp(otlp_sample_file("otep-0239.pb"))
  t <- dm::dm_get_tables(x)
  expect_identical(nrow(t$samples), 2L)
  frames <- function(id) {
    sl <- t$sample_locations[t$sample_locations$sample_id == id, ]
    sl <- sl[order(sl$depth), ]
    fid <- t$locations$function_id[match(sl$location_id, t$locations$location_id)]
    t$functions$name[match(fid, t$functions$function_id)]
  }
  # foo;bar;baz and foo;bar (root first) as leaf-first stacks
  expect_identical(frames(t$samples$sample_id[[1]]), c("baz", "bar", "foo"))
  expect_identical(frames(t$samples$sample_id[[2]]), c("bar", "foo"))
  expect_identical(t$sample_values$value, c(100, 200))
  expect_identical(t$sample_types$type, "cpu")
  expect_identical(t$sample_types$unit, "samples")
  expect_identical(t$sample_labels$key, c("region", "region"))
  expect_identical(t$sample_labels$value, c("us", "us"))
  expect_identical(t$samples$trace_id, c("01020304010203040102030401020304", NA))
  expect_identical(t$samples$span_id, c("9999999999999999", NA))
  # timestamp 1687841528000000, start 1687841520000000: 0.008 s in
  expect_identical(t$samples$time, c(0.008, NA))
  expect_identical(t$sources$profile_id, "0102030405060708090a0b0c0d0e0f10")
  expect_identical(t$sources$time_nanos, "1687841520000000")
  expect_identical(t$resources$schema_url, "todo")
  expect_same_profile(read_otlp(otlp_sample_file("otep-0239.json")), x, source_uri = FALSE)
})

test_that("JSON lines, gzip, snake_case and base64 ids read as the message they hold", {
  skip_if_no_otlp_oracle()
  x <- read_otlp(otlp_sample_file("otep-0239.pb"))
  json <- readLines(otlp_to_json(otlp_sample_file("otep-0239.pb")))
  # Two messages, one per line, gzip-compressed: one profile of both.
  lines <- tempfile(fileext = ".jsonl.gz")
  con <- gzfile(lines, "w")
  writeLines(c(json, json), con)
  close(con)
  y <- read_otlp(lines)
  t <- dm::dm_get_tables(y)
  expect_identical(nrow(t$sources), 2L)
  expect_identical(nrow(t$samples), 4L)
  expect_identical(nrow(t$functions), 3L) # merged
  # snake_case keys and a trace id in base64 (a plain protobuf JSON encoder)
  snake <- gsub(
    "traceId\":\"01020304010203040102030401020304", "trace_id\":\"AQIDBAECAwQBAgMEAQIDBA==", json
  )
  snake <- gsub("stackIndex", "stack_index", snake, fixed = TRUE)
  path <- tempfile(fileext = ".json")
  writeLines(snake, path)
  expect_same_profile(read_otlp(path, source_uri = otlp_sample_file("otep-0239.pb")), x)
})

test_that("v1 output holds the samples/count values, and refuses other types", {
  rprof <- system.file("samples", "rprof", "1.out", package = "profile")
  path <- tempfile(fileext = ".pb")
  write_otlp(read_rprof(rprof), path)
  v1 <- read_otlp(path, version = "1.0")
  expect_s3_class(v1, "profile_data")
  expect_silent(validate_profile(v1))
  expect_identical(sum(v1$samples$value), sum(read_rprof(rprof, version = "1.0")$samples$value))
  expect_error(read_otlp(burn("otlp.pb"), version = "1.0"), class = "profile_error_unsupported")
})
