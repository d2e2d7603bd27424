# The independent OTLP profiles oracle (issue 23), R side: where the real files
# are, the node tool of tests/otlp (protobufjs with our own schema), protoc's
# --decode_raw (no schema at all) parsed into a tree, and the mutation
# generator. The semantic readings (resolved samples, Pyroscope's outputs,
# pprof and folded siblings) are in helper-otlp-semantics.R. None of this uses
# read_otlp() or write_otlp(): it judges them. tests/otlp/README.md describes
# the tools.

`%||%` <- function(a, b) if (is.null(a)) b else a

# ---- skips that CI does not allow ---------------------------------------------

# Skips with `message`, except where PROFILE_OTLP_REQUIRE_ORACLES is "true"
# (dev/test.sh sets it in CI, where dev/install.sh installs every oracle and
# ../shared is beside the clone): there a missing oracle or real file is an
# error, so that a broken install step cannot pass as skipped tests. R CMD
# check of the built package (no tests/otlp/node_modules, no ../shared) skips.
otlp_skip <- function(message) {
  if (identical(Sys.getenv("PROFILE_OTLP_REQUIRE_ORACLES"), "true")) {
    stop("PROFILE_OTLP_REQUIRE_ORACLES is true, and ", message, call. = FALSE)
  }
  testthat::skip(message)
}

# Skips (CI: fails) unless go, for go tool pprof, is installed.
otlp_skip_if_no_go <- function() {
  if (!nzchar(Sys.which("go"))) otlp_skip("Go is not installed (needed for `go tool pprof`)")
}

# Skips (CI: fails) unless jsonlite is installed.
otlp_skip_if_no_jsonlite <- function() {
  if (!requireNamespace("jsonlite", quietly = TRUE)) otlp_skip("jsonlite is not installed")
}

# Skips (CI: fails) unless RSQLite is installed.
otlp_skip_if_no_rsqlite <- function() {
  if (!requireNamespace("RSQLite", quietly = TRUE)) otlp_skip("RSQLite is not installed")
}

# ---- where things are --------------------------------------------------------

# The folder of the real OTLP files (shared/otlp beside the package source, or
# PROFILE_SHARED_DIR/otlp); skips (CI: fails) when it is absent.
otlp_oracle_shared_dir <- function() {
  env <- Sys.getenv("PROFILE_SHARED_DIR")
  candidates <- c(
    if (nzchar(env)) file.path(env, "otlp"),
    test_path("..", "..", "..", "shared", "otlp"),
    test_path("..", "..", "..", "..", "shared", "otlp")
  )
  found <- candidates[dir.exists(candidates)]
  if (!length(found)) {
    otlp_skip(paste(
      "the real OTLP files (shared/otlp) are not beside the source tree",
      "(set PROFILE_SHARED_DIR)"
    ))
  }
  normalizePath(found[[1]])
}

# A file of shared/otlp, e.g. otlp_oracle_shared_file("pyroscope", "otel-ebpf-profile.pb.bin").
otlp_oracle_shared_file <- function(...) {
  path <- file.path(otlp_oracle_shared_dir(), ...)
  if (!file.exists(path)) otlp_skip(paste("missing real OTLP file", path))
  path
}

# The OTLP files written by data-raw/otlp-samples.mjs: the package's sample
# (inst/samples/otlp, e.g. "otep-0239.pb"; from the source tree when the
# installed package predates it) ...
otlp_sample_file <- function(name) {
  path <- system.file("samples", "otlp", name, package = "profile")
  if (!nzchar(path)) path <- test_path("..", "..", "inst", "samples", "otlp", name)
  if (!file.exists(path)) stop("no OTLP sample file ", name)
  path
}

# ... and the damaged copies of the tests: a data frame (file, defect, table,
# index, where; see data-raw/README.md) with `path` added.
otlp_defect_files <- function() {
  dir <- test_path("fixtures", "otlp-defects")
  defects <- utils::read.delim(
    file.path(dir, "DEFECTS.tsv"),
    colClasses = "character", na.strings = character()
  )
  defects$path <- file.path(dir, defects$file)
  defects
}

# The folder of the node tool (tests/otlp, or PROFILE_OTLP_ORACLE_DIR).
otlp_oracle_dir <- function() {
  env <- Sys.getenv("PROFILE_OTLP_ORACLE_DIR")
  normalizePath(if (nzchar(env)) env else test_path("..", "otlp"), mustWork = FALSE)
}

# Skips (CI: fails) unless node and the tool's npm modules (protobufjs) are installed.
skip_if_no_otlp_oracle <- function() {
  otlp_skip_if_no_jsonlite()
  if (!nzchar(Sys.which("node"))) otlp_skip("node is not installed: the OTLP oracle needs node")
  modules <- file.path(otlp_oracle_dir(), "node_modules", "protobufjs")
  if (!dir.exists(modules)) {
    otlp_skip(paste(
      "the OTLP oracle's npm modules are missing:",
      "run `bash dev/vendor-js.sh` in the source tree"
    ))
  }
}

# Skips (CI: fails) unless protoc (Debian's protobuf-compiler) is installed.
skip_if_no_protoc <- function() {
  if (!nzchar(Sys.which("protoc"))) {
    otlp_skip("protoc is not installed (Debian package protobuf-compiler)")
  }
}

# ---- the node tool -----------------------------------------------------------

# Runs `node tests/otlp/<script> <args>`; returns standard output as lines.
# An exit status in `ok` is success; another is an error quoting standard error.
otlp_node <- function(args, script = "otlp-oracle.mjs", input = NULL, ok = 0L) {
  skip_if_no_otlp_oracle()
  err <- tempfile()
  on.exit(unlink(err))
  stdin <- ""
  if (!is.null(input)) {
    stdin <- tempfile()
    on.exit(unlink(stdin), add = TRUE)
    writeLines(input, stdin)
  }
  out <- suppressWarnings(system2(
    "node", c(shQuote(file.path(otlp_oracle_dir(), script)), args),
    stdout = TRUE, stderr = err, stdin = stdin
  ))
  status <- attr(out, "status") %||% 0L
  if (!status %in% ok) {
    stop(
      "otlp oracle (", script, " ", paste(args, collapse = " "), ") failed with status ", status,
      ":\n", paste(readLines(err), collapse = "\n"),
      call. = FALSE
    )
  }
  out
}

# Binary or JSON (gzip or not) -> OTLP/JSON (lowerCamelCase, 64-bit integers as
# strings, hex ids); returns the path written.
otlp_to_json <- function(path, out = tempfile(fileext = ".json"), pretty = FALSE) {
  otlp_node(c("to-json", if (pretty) "--pretty", shQuote(path), shQuote(out)))
  out
}

# OTLP/JSON -> binary ProfilesData by protobufjs. strict: unknown keys are an
# error. line: which message of a JSON-lines file.
otlp_to_binary <- function(path, out = tempfile(fileext = ".pb"), strict = TRUE, line = NULL) {
  otlp_node(c(
    "to-binary", if (strict) "--strict", if (!is.null(line)) c("--line", line),
    shQuote(path), shQuote(out)
  ))
  out
}

# The canonical dump of a file as JSON text (one string): every dictionary
# index resolved into its value, or with literal = TRUE the message as it is
# (OTLP/JSON with the dictionary). merge: samples of equal identity combined;
# sort: samples and their observations in a fixed order; implicit_values: a
# timestamps-only sample gets the value 1 per timestamp. See tests/otlp/README.md.
# Dumps are kept for the R session, by file (path, size, time) and options.
otlp_canonical_text <- function(path, literal = FALSE, merge = FALSE, sort = FALSE,
                                implicit_values = FALSE) {
  args <- c(
    "canonical", if (literal) "--literal", if (merge) "--merge", if (sort) "--sort",
    if (implicit_values) "--implicit-values", shQuote(path)
  )
  info <- file.info(path)
  key <- paste(c(normalizePath(path), info$size, format(info$mtime, "%OS6"), args), collapse = "|")
  if (is.null(otlp_dumps[[key]])) otlp_dumps[[key]] <- paste(otlp_node(args), collapse = "\n")
  otlp_dumps[[key]]
}
otlp_dumps <- new.env(parent = emptyenv())

# The same, parsed (nested lists as in the JSON).
otlp_canonical <- function(path, ...) {
  jsonlite::fromJSON(otlp_canonical_text(path, ...), simplifyVector = FALSE)
}

# Whether two files (any form) hold the same message, field by field with
# indices as they are: their literal dumps compared after leaving out empty
# objects that are not array elements (a message field present but empty
# means what an absent one means; an empty table entry keeps its place).
# Returns the differences found by all.equal() (character(), none, when the
# same).
otlp_same_message <- function(a, b) {
  prune <- function(x) {
    if (!is.list(x)) {
      return(x)
    }
    named <- !is.null(names(x))
    x <- lapply(x, prune)
    if (named) {
      empty <- vapply(x, function(e) is.list(e) && !length(e) && !is.null(names(e)), TRUE)
      x <- x[!empty]
    }
    x
  }
  dump <- function(path) prune(otlp_canonical(path, literal = TRUE))
  same <- all.equal(dump(a), dump(b))
  if (isTRUE(same)) character() else same
}

# Whether two files hold the same profiles whatever their dictionaries' order
# and however their writers grouped observations into samples: their
# canonical dumps with merge, sort and implicit values (tests/otlp/README.md)
# compared. Returns character() when the same, else the two dumps' first
# differing lines.
otlp_same_profiles <- function(a, b) {
  dump <- function(path) {
    text <- otlp_canonical_text(path, merge = TRUE, sort = TRUE, implicit_values = TRUE)
    strsplit(jsonlite::prettify(text, indent = 1), "\n")[[1]]
  }
  x <- dump(a)
  y <- dump(b)
  if (identical(x, y)) {
    return(character())
  }
  n <- min(length(x), length(y))
  first <- which(x[seq_len(n)] != y[seq_len(n)])[1]
  if (is.na(first)) first <- n + 1L
  c(
    sprintf("%d against %d lines; first difference at line %d:", length(x), length(y), first),
    paste("a:", x[first]), paste("b:", y[first])
  )
}

# The oracle's check of each of `paths`: a list of reports (one per path, named
# by path): ok, format, gzip, bytes, wireErrors, unknownFields, jsonErrors,
# verifyErrors, indexErrors, warnings, counts (see tests/otlp/README.md). Runs
# one node process for all paths.
otlp_check <- function(paths, strict = FALSE) {
  out <- otlp_node(c("check", "--paths", if (strict) "--strict"), input = paths, ok = 0:1)
  reports <- lapply(out, jsonlite::fromJSON, simplifyVector = TRUE)
  names(reports) <- vapply(reports, function(r) r$file, "")
  reports
}

# Which drafts' wire layouts each of `paths` (binary) parses under without a
# wire error or an unknown field: a list (by path) of reports with `clean`
# (draft names among "v1.3", "v1.5", "v1.7", "v1.8", "v1.9", "v1.10", the
# current one) and per draft the counts (tests/otlp/otlp-drafts.mjs).
otlp_drafts <- function(paths) {
  out <- otlp_node(c("drafts", "--paths"), input = paths)
  reports <- lapply(out, jsonlite::fromJSON, simplifyVector = TRUE)
  names(reports) <- vapply(reports, function(r) r$file, "")
  reports
}

# Our schema as .proto files (made from tests/otlp/otlp-profiles.schema.json
# at run time, never committed), for `protoc --decode`: the path of the file of
# the profiles package (its imports beside it).
otlp_proto_file <- function() {
  dir <- file.path(tempdir(), "profile-otlp-proto")
  file <- file.path(dir, "opentelemetry_proto_profiles_v1development.proto")
  if (!file.exists(file)) otlp_node(c("proto", shQuote(dir)))
  file
}

# ---- protoc ------------------------------------------------------------------

# The bytes of a file, gunzipped when they start with the gzip magic.
otlp_file_bytes <- function(path) {
  bytes <- readBin(path, "raw", file.size(path))
  if (length(bytes) >= 2 && bytes[[1]] == as.raw(0x1f) && bytes[[2]] == as.raw(0x8b)) {
    con <- gzcon(rawConnection(bytes))
    on.exit(close(con))
    chunks <- list()
    repeat {
      chunk <- readBin(con, "raw", 1e6)
      if (!length(chunk)) break
      chunks[[length(chunks) + 1L]] <- chunk
    }
    bytes <- unlist(chunks)
  }
  bytes
}

# Runs protoc with the bytes of `path` (gunzipped) on standard input; returns
# its output lines, or an error with its message.
otlp_protoc <- function(path, args) {
  skip_if_no_protoc()
  input <- tempfile()
  err <- tempfile()
  on.exit(unlink(c(input, err)))
  writeBin(otlp_file_bytes(path), input)
  out <- suppressWarnings(system2("protoc", args, stdin = input, stdout = TRUE, stderr = err))
  status <- attr(out, "status") %||% 0L
  if (status != 0) {
    stop(
      "protoc ", paste(args, collapse = " "), " failed: ", paste(readLines(err), collapse = " "),
      call. = FALSE
    )
  }
  out
}

# protoc's --decode of ProfilesData (opentelemetry.proto.profiles.v1development)
# with our schema: text format lines (unknown fields show as bare numbers).
otlp_protoc_decode <- function(path) {
  proto <- otlp_proto_file()
  otlp_protoc(path, c(
    paste0("--proto_path=", shQuote(dirname(proto))),
    "--decode=opentelemetry.proto.profiles.v1development.ProfilesData",
    shQuote(basename(proto))
  ))
}

# `protoc --decode_raw` (no schema) parsed into a tree: a message is a list
# named by field number (in wire order, repeated numbers repeated); a nested
# message is a list, any other value a string with attribute "wire": "varint"
# (unsigned decimal), "fixed64" / "fixed32" (0x... as protoc prints them) or
# "bytes" (protoc's C-escaped text; otlp_raw_bytes() gives the bytes).
# protoc shows a length-delimited field as a message whenever its bytes parse
# as one, so strings and packed numbers may appear as either: compare trees
# of the same bytes' meaning only with trees made the same way.
otlp_decode_raw <- function(path) {
  otlp_parse_decode_raw(otlp_protoc(path, "--decode_raw"))
}

otlp_parse_decode_raw <- function(lines) {
  lines <- trimws(lines)
  lines <- lines[nzchar(lines)]
  opens <- grepl("^[0-9]+ \\{$", lines)
  closes <- lines == "}"
  # Matching close of each open line.
  match_close <- integer(length(lines))
  stack <- integer()
  for (i in which(opens | closes)) {
    if (opens[[i]]) {
      stack <- c(stack, i)
    } else {
      match_close[[stack[[length(stack)]]]] <- i
      stack <- stack[-length(stack)]
    }
  }
  if (length(stack)) stop("unbalanced protoc --decode_raw output")
  build <- function(from, to) {
    out <- list()
    keys <- character()
    i <- from
    while (i <= to) {
      line <- lines[[i]]
      if (opens[[i]]) {
        end <- match_close[[i]]
        keys <- c(keys, sub(" \\{$", "", line))
        out[[length(out) + 1L]] <- build(i + 1L, end - 1L)
        i <- end + 1L
        next
      }
      key <- sub(":.*$", "", line)
      text <- sub("^[0-9]+: ", "", line)
      wire <- if (startsWith(text, "\"")) {
        text <- substr(text, 2L, nchar(text) - 1L)
        "bytes"
      } else if (grepl("^0x[0-9a-f]{16}$", text)) {
        "fixed64"
      } else if (grepl("^0x[0-9a-f]{8}$", text)) {
        "fixed32"
      } else {
        "varint"
      }
      keys <- c(keys, key)
      out[[length(out) + 1L]] <- structure(text, wire = wire)
      i <- i + 1L
    }
    names(out) <- keys
    out
  }
  build(1L, length(lines))
}

# The bytes of a "bytes" value of a decode_raw tree (protoc's C escapes undone).
otlp_raw_bytes <- function(x) {
  tokens <- regmatches(x, gregexpr("\\\\[0-7]{1,3}|\\\\.|[^\\\\]+", x))[[1]]
  parts <- lapply(tokens, function(t) {
    if (!startsWith(t, "\\")) {
      return(charToRaw(t))
    }
    rest <- substring(t, 2L)
    if (grepl("^[0-7]+$", rest)) {
      return(as.raw(strtoi(rest, 8L)))
    }
    simple <- c(n = 10L, r = 13L, t = 9L, "\"" = 34L, "'" = 39L, "\\" = 92L)
    as.raw(simple[[rest]])
  })
  unlist(parts) %||% raw()
}

# Differences between two decode_raw trees, as "path: what" strings (empty
# when equal). Paths are field numbers with the 1-based occurrence: 1[2].2[1].
otlp_raw_compare <- function(a, b, path = "") {
  if (is.list(a) != is.list(b)) {
    return(sprintf("%s: a %s against a %s", path, otlp_raw_kind(a), otlp_raw_kind(b)))
  }
  if (!is.list(a)) {
    if (identical(a, b)) {
      return(character())
    }
    return(sprintf("%s: %s %s against %s %s", path, attr(a, "wire"), a, attr(b, "wire"), b))
  }
  na <- names(a) %||% character()
  nb <- names(b) %||% character()
  prefix <- if (nzchar(path)) paste0(path, ".") else ""
  label <- function(names, i) {
    sprintf("%s%s[%d]", prefix, names[[i]], sum(names[seq_len(i)] == names[[i]]))
  }
  out <- character()
  for (i in seq_len(min(length(a), length(b)))) {
    if (na[[i]] != nb[[i]]) {
      return(c(out, sprintf("%s: field %s against field %s", label(na, i), na[[i]], nb[[i]])))
    }
    out <- c(out, otlp_raw_compare(a[[i]], b[[i]], label(na, i)))
  }
  if (length(a) != length(b)) {
    where <- if (nzchar(path)) path else "top"
    out <- c(out, sprintf("%s: %d fields against %d", where, length(a), length(b)))
  }
  out
}

otlp_raw_kind <- function(x) if (is.list(x)) "message" else attr(x, "wire")

# How often each field path occurs in a decode_raw tree: a named integer
# vector, names like "2.5" (ProfilesData.dictionary.string_table), sorted.
otlp_raw_counts <- function(tree) {
  walk <- function(node, prefix) {
    if (!is.list(node)) {
      return(character())
    }
    here <- paste0(prefix, names(node))
    below <- Map(function(child, p) walk(child, paste0(p, ".")), node, here)
    c(here, unlist(below, use.names = FALSE))
  }
  counts <- table(walk(tree, ""))
  stats::setNames(as.integer(counts), names(counts))
}

# ---- damaged files -----------------------------------------------------------

# Mutated cases from..to-1 of the OTLP seed files (random seed `seed`), written
# into the new directory `dir` by tests/otlp/otlp-mutate.mjs: a data frame
# with each case's path, kind, the defect it was made to have (or "") and a
# label that says how to make it again.
otlp_mutated_cases <- function(seeds, seed, from, to, dir) {
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  manifest <- otlp_node(
    c("-seed", seed, "-from", from, "-to", to, "-out", shQuote(dir), shQuote(seeds)),
    script = "otlp-mutate.mjs"
  )
  fields <- strsplit(manifest, "\t", fixed = TRUE)
  field <- function(k) vapply(fields, function(f) if (length(f) >= k) f[[k]] else "", "")
  detail <- field(4L)
  data.frame(
    path = field(1L),
    kind = field(3L),
    defect = ifelse(grepl("\\]$", detail), sub("^.*\\[([^]]*)\\]$", "\\1", detail), ""),
    label = sprintf(
      "case %s (seed %s, %s of %s: %s)", basename(field(1L)), seed, field(3L),
      basename(field(2L)), detail
    )
  )
}

# The number of mutated OTLP cases: PROFILE_OTLP_MUTATIONS, else 2000 (CI sets
# 10000 or more).
otlp_mutation_count <- function() {
  n <- suppressWarnings(as.integer(Sys.getenv("PROFILE_OTLP_MUTATIONS", "2000")))
  if (is.na(n) || n < 0) 2000L else n
}

# ---- dictionary order --------------------------------------------------------

# A literal OTLP/JSON message (otlp_canonical_text(literal = TRUE), parsed)
# with the entries of every dictionary table but entry 0 put in a random order
# (seed) and every index into them changed to match: the same profile, other
# bytes. For tests that a reading does not depend on the dictionary's order.
otlp_shuffle_dictionary <- function(message, seed) {
  tables <- c(
    stringTable = "Strindex$", functionTable = "^functionIndex$",
    locationTable = "^locationIndices$", attributeTable = "^attributeIndices$",
    stackTable = "^stackIndex$", mappingTable = "^mappingIndex$", linkTable = "^linkIndex$"
  )
  dictionary <- message[["dictionary"]]
  withr::with_seed(seed, {
    for (table in names(tables)) {
      n <- length(dictionary[[table]])
      if (n < 3L) next
      order <- c(1L, 1L + sample.int(n - 1L))
      new_index <- match(seq_len(n), order) - 1L
      dictionary[[table]] <- dictionary[[table]][order]
      message[["dictionary"]] <- dictionary
      message <- otlp_remap_indices(message, tables[[table]], new_index)
      dictionary <- message[["dictionary"]]
    }
  })
  message
}

# Every element whose name matches `pattern` (recursively) mapped through
# new_index (0-based old index + 1 -> new index).
otlp_remap_indices <- function(x, pattern, new_index) {
  if (!is.list(x)) {
    return(x)
  }
  keys <- names(x) %||% rep("", length(x))
  for (i in seq_along(x)) {
    if (nzchar(keys[[i]]) && grepl(pattern, keys[[i]])) {
      old <- x[[i]]
      mapped <- lapply(old, function(k) new_index[[as.integer(k) + 1L]])
      x[[i]] <- if (is.list(old)) mapped else mapped[[1]]
    } else if (is.list(x[[i]])) {
      x[[i]] <- otlp_remap_indices(x[[i]], pattern, new_index)
    }
  }
  x
}
