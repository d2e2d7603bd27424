# Helpers of the differential test against Go's pprof parser
# (test-oracle-pprof.R): building the two Go programs of tests/oracle, the
# R-side dump of a v2 profile in the format of tests/oracle/pprof-dump (see
# its header comment), and running cases in batches.

# Where Debian's golang-github-google-pprof-dev puts Go's profile package; the
# environment variable PROFILE_ORACLE_GOPATH names another GOPATH holding it.
oracle_gopath <- function() {
  path <- Sys.getenv("PROFILE_ORACLE_GOPATH", "/usr/share/gocode")
  if (!dir.exists(file.path(path, "src/github.com/google/pprof/profile"))) {
    testthat::skip(paste0(
      "Go's pprof sources are not in ", path, "/src/github.com/google/pprof/profile ",
      "(install golang-github-google-pprof-dev, or set PROFILE_ORACLE_GOPATH)"
    ))
  }
  normalizePath(path)
}

# Builds pprof-dump and pprof-mutate once per R session (in tempdir()); returns
# their paths. Skips when Go or the pprof sources are missing.
oracle_programs <- function() {
  if (!nzchar(Sys.which("go"))) {
    testthat::skip("Go is not installed (needed to build the pprof oracle)")
  }
  gopath <- oracle_gopath()
  dir <- file.path(tempdir(), "profile-oracle")
  programs <- c(dump = file.path(dir, "pprof-dump"), mutate = file.path(dir, "pprof-mutate"))
  if (all(file.exists(programs))) {
    return(programs)
  }
  dir.create(dir, showWarnings = FALSE)
  sources <- testthat::test_path("..", "oracle")
  # GOPATH mode, no network; a build cache of its own unless one is set.
  env <- c("GO111MODULE=off", paste0("GOPATH=", gopath), "GOFLAGS=", "GOPROXY=off")
  if (!nzchar(Sys.getenv("GOCACHE"))) {
    env <- c(env, paste0("GOCACHE=", file.path(dir, "gocache")))
  }
  for (name in names(programs)) {
    log <- tempfile()
    status <- withr::with_dir(
      file.path(sources, paste0("pprof-", name)),
      system2(
        "go", c("build", "-o", shQuote(programs[[name]]), "."),
        env = env, stdout = log, stderr = log
      )
    )
    if (status != 0) {
      stop("building the pprof oracle failed:\n", paste(readLines(log), collapse = "\n"))
    }
  }
  programs
}

# The number of mutated cases: PROFILE_ORACLE_CASES, else 2000.
oracle_case_count <- function() {
  n <- suppressWarnings(as.integer(Sys.getenv("PROFILE_ORACLE_CASES", "2000")))
  if (is.na(n) || n < 0) 2000L else n
}

# The real pprof files the mutations start from: the package's samples (Go CPU
# with labels, heap, goroutine, mutex, block; profile 1.0's proto sample) and
# pprof files write_pprof() makes from Rprof samples (frames in the "[R]"
# mapping, line numbers, memory types).
oracle_seed_files <- function(dir) {
  shipped <- c(
    list.files(system.file("samples/pprof", package = "profile"), full.names = TRUE),
    list.files(system.file("samples/proto", package = "profile"), full.names = TRUE)
  )
  written <- vapply(c("line.out", "memory.out"), function(name) {
    path <- file.path(dir, paste0("written-", sub("[.]out$", "", name), ".pb.gz"))
    write_pprof(read_rprof(system.file("samples/rprof", name, package = "profile")), path)
    path
  }, "")
  unname(c(shipped, written))
}

# Runs `program` with the lines `input` on its standard input; returns its
# standard output as lines (an error if it fails).
oracle_run_program <- function(program, args = character(), input = character()) {
  stdin <- tempfile()
  stdout <- tempfile()
  stderr <- tempfile()
  on.exit(unlink(c(stdin, stdout, stderr)))
  writeLines(input, stdin)
  status <- system2(program, args, stdin = stdin, stdout = stdout, stderr = stderr)
  if (status != 0) {
    stop(basename(program), " failed:\n", paste(readLines(stderr), collapse = "\n"))
  }
  readLines(stdout, encoding = "UTF-8")
}

# Mutated cases from..to-1 of the seed files (random seed `seed`), written into
# the new directory `dir` by pprof-mutate: a data frame with each case's path,
# kind and a label that says how to make it again.
oracle_mutated_cases <- function(program, seeds, seed, from, to, dir) {
  dir.create(dir)
  manifest <- oracle_run_program(
    program,
    c("-seed", seed, "-from", from, "-to", to, "-out", shQuote(dir), shQuote(seeds))
  )
  fields <- strsplit(manifest, "\t", fixed = TRUE)
  field <- function(k) vapply(fields, `[[`, "", k)
  data.frame(
    path = field(1L),
    kind = field(3L),
    label = sprintf(
      "case %s (seed %d, %s of %s: %s)", basename(field(1L)), seed, field(3L), field(2L), field(4L)
    )
  )
}

# Go's dumps of `paths`: a list of character vectors, by path.
oracle_go_dumps <- function(program, paths) {
  lines <- oracle_run_program(program, input = paths)
  starts <- which(startsWith(lines, "### "))
  ends <- c(starts[-1] - 1L, length(lines))
  dumps <- Map(function(s, e) lines[seq_len(e - s) + s], starts, ends)
  names(dumps) <- substring(lines[starts], 5L)
  dumps
}

# What read_pprof() makes of `path`: list(dump = <lines>) when it reads the
# file, list(error = <condition>) when it refuses it with a profile_error (its
# message is formatted only when shown: that costs more than the read), and
# list(wrong = <text>) for any other error or a result that is not a profile.
oracle_r_result <- function(path) {
  x <- tryCatch(
    read_pprof(path),
    profile_error = function(e) list(error = e),
    error = function(e) {
      list(
        wrong = paste0(
          "an error of class ", paste(class(e), collapse = "/"), ": ", conditionMessage(e)
        )
      )
    }
  )
  if (inherits(x, "dm")) {
    dump <- tryCatch(oracle_dump_v2(x), error = function(e) NULL)
    if (is.null(dump)) list(wrong = "a profile the dump cannot show") else list(dump = dump)
  } else {
    x
  }
}

# ---------------------------------------------------------------------------
# The dump of a v2 profile read from one pprof file, from its tables only.

# Strings as pprof-dump quotes them: between double quotes, with backslash and
# double quote escaped and other control characters as \xHH.
oracle_quote <- function(x) {
  x <- enc2utf8(x)
  x <- gsub("\\", "\\\\", x, fixed = TRUE, useBytes = TRUE)
  x <- gsub("\"", "\\\"", x, fixed = TRUE, useBytes = TRUE)
  odd <- grepl("[\x01-\x1f\x7f]", x, useBytes = TRUE)
  if (any(odd)) {
    for (code in c(1:31, 127)) {
      x[odd] <- gsub(
        rawToChar(as.raw(code)), sprintf("\\x%02x", code), x[odd],
        fixed = TRUE, useBytes = TRUE
      )
    }
  }
  x <- if (length(x)) paste0("\"", x, "\"") else character()
  Encoding(x) <- "UTF-8"
  x
}

# NA (unset in pprof) as pprof's zero values.
oracle_or <- function(x, zero) ifelse(is.na(x), zero, x)

# A double as pprof-dump prints an int64 converted to a double: exactly, no
# fraction ("NA" would be a defect, shown as such).
oracle_number <- function(x) {
  out <- sprintf("%.0f", x)
  out[is.na(x)] <- "NA"
  out
}

oracle_dump_v2 <- function(x) {
  t <- dm::dm_get_tables(x)
  src <- t$sources
  stopifnot(nrow(src) == 1L)
  types <- t$sample_types
  mappings <- t$mappings
  header <- c(
    sprintf("sample_type %s %s", oracle_quote(types$type), oracle_quote(types$unit)),
    sprintf("default_sample_type %s", oracle_quote(oracle_or(src$default_sample_type, ""))),
    sprintf(
      "period_type %s %s", oracle_quote(oracle_or(src$period_type, "")),
      oracle_quote(oracle_or(src$period_unit, ""))
    ),
    sprintf("period %s", oracle_number(oracle_or(src$period, 0))),
    sprintf("time_nanos %s", oracle_or(src$time_nanos, "0")),
    sprintf("duration_nanos %s", oracle_number(oracle_or(src$duration_nanos, 0))),
    sprintf("drop_frames %s", oracle_quote(oracle_or(src$drop_frames, ""))),
    sprintf("keep_frames %s", oracle_quote(oracle_or(src$keep_frames, ""))),
    sprintf("comment %s", oracle_quote(as.character(t$source_comments$comment))),
    sprintf(
      "mapping %d %s %s %s %s %s %s", seq_len(nrow(mappings)), oracle_quote(mappings$filename),
      oracle_quote(mappings$build_id), mappings$memory_start, mappings$memory_limit,
      mappings$file_offset,
      paste0(
        as.integer(mappings$has_functions), as.integer(mappings$has_filenames),
        as.integer(mappings$has_line_numbers), as.integer(mappings$has_inline_frames)
      )
    )
  )
  c(header, oracle_sample_lines(t))
}

# The lines of the samples: "sample i", its values, frames and labels, built
# for all samples at once and put in order by (sample, section, rank).
oracle_sample_lines <- function(t) {
  samples <- t$samples$sample_id
  types <- t$sample_types$type

  # Values: one line per sample, in the order of the declared types.
  sv <- t$sample_values
  values <- matrix(NA_real_, length(samples), length(types))
  values[cbind(match(sv$sample_id, samples), match(sv$type, types))] <- sv$value
  value_text <- if (length(types)) {
    do.call(paste, c(lapply(seq_along(types), function(j) oracle_number(values[, j])), sep = " "))
  } else {
    rep("", length(samples))
  }

  # Frames: sample_locations joined with locations, functions and mappings;
  # the text of each location made once.
  fun <- t$functions
  function_text <- paste(
    oracle_quote(fun$name), oracle_quote(fun$system_name), oracle_quote(fun$filename),
    oracle_number(fun$start_line)
  )
  loc <- t$locations
  mapping <- match(loc$mapping_id, t$mappings$mapping_id)
  tail <- paste(
    oracle_or(loc$address, "0x0"), ifelse(is.na(mapping), "-", mapping),
    as.integer(loc$is_folded)
  )
  location_text <- paste(
    " frame", function_text[match(loc$function_id, fun$function_id)],
    oracle_number(loc$line), as.integer(!is.na(loc$inlined_into)), tail
  )
  no_lines <- is.na(loc$function_id)
  location_text[no_lines] <- paste(" frame - - - NA NA 0", tail[no_lines])
  sl <- t$sample_locations
  frame_text <- location_text[match(sl$location_id, loc$location_id)]

  # Labels: string labels (value not NA), then numeric ones, each by key in
  # byte order, then in file order.
  lab <- t$sample_labels
  numeric <- is.na(lab$value)
  label_text <- ifelse(
    numeric,
    paste(
      " numlabel",
      oracle_quote(lab$key),
      oracle_number(lab$num),
      oracle_quote(oracle_or(lab$num_unit, ""))
    ),
    paste(" label", oracle_quote(lab$key), oracle_quote(oracle_or(lab$value, "")))
  )
  label_rank <- order(
    match(lab$sample_id, samples), numeric, lab$key, seq_len(nrow(lab)),
    method = "radix"
  )

  parts <- data.frame(
    sample = c(
      seq_along(samples),
      seq_along(samples),
      match(sl$sample_id, samples),
      match(lab$sample_id[label_rank], samples)
    ),
    section = rep(1:4, c(length(samples), length(samples), nrow(sl), nrow(lab))),
    rank = c(integer(2L * length(samples)), sl$depth, seq_len(nrow(lab))),
    text = c(
      paste("sample", seq_along(samples)),
      paste0(" value", ifelse(nzchar(value_text), " ", ""), value_text),
      frame_text, label_text[label_rank]
    )
  )
  parts$text[order(parts$sample, parts$section, parts$rank, method = "radix")]
}
