go_files <- c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz", "mutex.pb.gz", "block.pb.gz")

test_that("read_pprof() gives the samples, values, labels and stacks go tool pprof shows", {
  skip_if_no_go()
  for (file in go_files) {
    path <- sample_path("pprof", file)
    x <- read_pprof(path)
    expect_silent(validate_profile(x))
    theirs <- parse_pprof_raw(go_pprof("raw", path))
    ours <- pprof_view_of_v2(x)
    expect_identical(ours$types, theirs$types, info = file)
    expect_identical(merged_samples(ours$samples), merged_samples(theirs$samples), info = file)
  }
})

test_that("one sample per pprof Sample, one value per sample type", {
  # The number of Sample messages in cpu.pb.gz, counted in the protobuf itself:
  # top-level field 2 (length-delimited, tag byte 0x12) at the message's top level.
  bytes <- read_gz(sample_path("pprof", "cpu.pb.gz"))
  count_top_level <- function(bytes, wanted_tag) {
    pos <- 1L
    n <- 0L
    varint <- function() {
      value <- 0
      shift <- 1
      repeat {
        b <- as.integer(bytes[[pos]])
        pos <<- pos + 1L
        value <- value + (b %% 128) * shift
        shift <- shift * 128
        if (b < 128) {
          return(value)
        }
      }
    }
    while (pos <= length(bytes)) {
      tag <- varint()
      wire <- tag %% 8
      if (tag == wanted_tag) n <- n + 1L
      if (wire == 0) {
        varint()
      } else if (wire == 2) {
        len <- varint()
        pos <- pos + len
      } else {
        stop("unexpected wire type")
      }
    }
    n
  }
  n_samples <- count_top_level(bytes, 2 * 8 + 2)
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  t <- dm::dm_get_tables(x)
  expect_identical(nrow(t$samples), n_samples)
  expect_identical(nrow(t$sample_values), 2L * n_samples)
  expect_identical(t$sample_types$type, c("samples", "cpu"))
  expect_identical(t$sample_types$unit, c("count", "nanoseconds"))
})

test_that("profile fields are those go tool pprof reports", {
  skip_if_no_go()
  path <- sample_path("pprof", "cpu.pb.gz")
  raw <- go_pprof("raw", path)
  src <- dm::dm_get_tables(read_pprof(path))$sources
  expect_identical(src$source_type, "pprof")
  expect_identical(src$source_uri, path)
  header <- function(name) {
    sub(paste0("^", name, ": "), "", grep(paste0("^", name, ":"), raw, value = TRUE))
  }
  expect_identical(paste(src$period_type, src$period_unit), header("PeriodType"))
  expect_identical(format(src$period, scientific = FALSE), header("Period"))
  expect_equal(src$duration_nanos / 1e9, as.numeric(header("Duration")), tolerance = 0.01)
  # Time: "2026-11-21 22:34:04.28834883 +0000 UTC"; time_nanos keeps every digit
  go_time <- header("Time")
  seconds <- as.numeric(as.POSIXct(substr(go_time, 1, 19), tz = "UTC"))
  fraction <- sub("^[^.]*[.]([0-9]*) .*$", "\\1", go_time)
  nanos <- substr(paste0(fraction, "000000000"), 1, 9)
  expect_identical(src$time_nanos, paste0(format(seconds, scientific = FALSE), nanos))
  expect_equal(src$source_timestamp, seconds + as.numeric(paste0("0.", fraction)), tolerance = 1e-6)
})

test_that("source_uri and the path are independent", {
  path <- sample_path("pprof", "goroutine.pb.gz")
  x <- read_pprof(path, source_uri = "https://example.org/debug/pprof/goroutine")
  expect_identical(
    dm::dm_get_tables(x)$sources$source_uri, "https://example.org/debug/pprof/goroutine"
  )
  x <- read_pprof(path, source_uri = NA)
  expect_identical(dm::dm_get_tables(x)$sources$source_uri, NA_character_)
})

test_that("inline frames: every line is a frame, linked to the line it is inlined into", {
  skip_if_no_go()
  path <- sample_path("pprof", "heap.pb.gz")
  t <- dm::dm_get_tables(read_pprof(path))
  loc <- t$locations
  # pprof -raw prints the lines of a location with inlined calls on continuation
  # lines; count them independently. It shows only locations of samples with a
  # value other than zero.
  raw <- go_pprof("raw", path)
  loc_lines <- raw[seq(match("Locations", raw) + 1L, match("Mappings", raw) - 1L)]
  continuation <- sum(!grepl("^ *[0-9]+: ", loc_lines))
  expect_gt(continuation, 0)
  sv <- t$sample_values
  nonzero <- unique(sv$sample_id[sv$value != 0])
  shown <- unique(t$sample_locations$location_id[t$sample_locations$sample_id %in% nonzero])
  expect_identical(sum(!is.na(loc$inlined_into) & loc$location_id %in% shown), continuation)
  # Each inlined row points at the next row of the same location, and the chain
  # ends at a row that carries a pprof id (not inlined into anything).
  inlined <- which(!is.na(loc$inlined_into))
  expect_identical(loc$inlined_into[inlined], loc$location_id[inlined + 1L])
  expect_true(all(loc$location_id[inlined] > max(loc$location_id[is.na(loc$inlined_into)])))
  # In stacks, an inlined frame is directly followed by its caller.
  sl <- t$sample_locations
  sl <- sl[order(sl$sample_id, sl$depth), ]
  at <- which(sl$location_id %in% loc$location_id[inlined])
  expect_identical(
    sl$location_id[at + 1L],
    loc$inlined_into[match(sl$location_id[at], loc$location_id)]
  )
  expect_identical(sl$sample_id[at + 1L], sl$sample_id[at])
})

test_that("labels: strings in value, numbers in num", {
  t <- dm::dm_get_tables(read_pprof(sample_path("pprof", "heap.pb.gz")))
  lab <- t$sample_labels
  expect_true(nrow(lab) > 0)
  expect_true(all(lab$key == "bytes"))
  expect_true(all(is.na(lab$value)))
  expect_true(all(lab$num > 0))
  # Go's heap profile puts the allocation size in the label: alloc_space is
  # alloc_objects times it.
  sv <- t$sample_values
  objects <- sv$value[sv$type == "alloc_objects"][match(lab$sample_id, unique(sv$sample_id))]
  space <- sv$value[sv$type == "alloc_space"][match(lab$sample_id, unique(sv$sample_id))]
  expect_equal(space[objects > 0], objects[objects > 0] * lab$num[objects > 0])

  g <- dm::dm_get_tables(read_pprof(sample_path("pprof", "goroutine.pb.gz")))$sample_labels
  expect_setequal(unique(g$key), c("role", "id"))
  expect_true(all(!is.na(g$value)) && all(is.na(g$num)))
})

test_that("mappings and addresses are kept as text", {
  skip_if_no_go()
  path <- sample_path("pprof", "cpu.pb.gz")
  t <- dm::dm_get_tables(read_pprof(path))
  raw <- go_pprof("raw", path)
  # the first mapping, as in: 1: 0x400000/0x4ce000/0x0 /tmp/profile-go-samples/profilesamples  [FN]
  m <- raw[match("Mappings", raw) + 1L]
  parts <- strsplit(sub("^[0-9]+: ", "", m), "[/ ]+")[[1]]
  # (pprof shows the mappings that locations use: here the first)
  expect_identical(t$mappings$memory_start[[1]], parts[[1]])
  expect_identical(t$mappings$memory_limit[[1]], parts[[2]])
  expect_identical(t$mappings$file_offset[[1]], parts[[3]])
  expect_true(grepl(t$mappings$filename[[1]], m, fixed = TRUE))
  expect_identical(t$mappings$has_functions[[1]], grepl("[FN]", m, fixed = TRUE))
  expect_true(all(grepl("^0x[0-9a-f]+$", c(t$locations$address, t$mappings$memory_limit))))
  expect_true(all(t$locations$mapping_id == t$mappings$mapping_id[[1]]))
})

test_that("plain (uncompressed) protobuf reads like gzip", {
  plain <- write_raw(read_gz(sample_path("pprof", "mutex.pb.gz")))
  a <- read_pprof(plain, source_uri = "x")
  b <- read_pprof(sample_path("pprof", "mutex.pb.gz"), source_uri = "x")
  expect_identical(dm::dm_get_tables(a), dm::dm_get_tables(b))
})

test_that("a hand-built message reads as built", {
  x <- read_pprof(write_raw(pprof_message()))
  t <- dm::dm_get_tables(x)
  expect_identical(t$samples$sample_id, 1L)
  expect_identical(t$sample_values$value, 5)
  # location 1 has two lines: the inner one (f, line 10) gets a new id after the
  # largest pprof id (2), the outer one (g, line 20) keeps id 1
  expect_identical(t$locations$location_id, c(3L, 1L, 2L))
  expect_identical(t$locations$function_id, c(1L, 2L, 2L))
  expect_identical(t$locations$line, c(10L, 20L, 30L))
  expect_identical(t$locations$inlined_into, c(1L, NA, NA))
  expect_identical(t$sample_locations$location_id, c(3L, 1L, 2L))
  expect_identical(t$sample_locations$depth, 1:3)
  expect_identical(t$functions$name, c("f", "g"))
  expect_identical(t$sample_labels$key, "worker")
  expect_identical(t$sample_labels$value, "w")
  expect_identical(t$sources$source_timestamp, NA_real_)
  expect_identical(t$sources$time_nanos, NA_character_)
})

test_that("read_pprof() checks its arguments", {
  path <- sample_path("pprof", "mutex.pb.gz")
  expect_error(read_pprof(path, "1.0"), class = "profile_error_argument")
  expect_error(read_pprof(path, version = "3.0"), class = "profile_error_argument")
  expect_error(read_pprof(c(path, path)), class = "profile_error_argument")
  expect_error(read_pprof(path, max_size = -1), class = "profile_error_argument")
  expect_error(read_pprof(path, source_uri = 1), class = "profile_error_argument")
  expect_s3_class(read_pprof(sample_path("pprof", "cpu.pb.gz"), version = 1), "profile_data")
})
