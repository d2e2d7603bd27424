#' Manipulate profiles: focus, ignore, hide, show, and more
#'
#' @description
#' Verbs from profile to profile, with the semantics of the flags of `go tool
#' pprof` of the same names. Each takes a profile first and returns a profile,
#' so they compose with `|>` and with the writers:
#'
#' - `profile_focus(x, pattern)` keeps the samples that have a frame matching
#'   `pattern` (`-focus`).
#' - `profile_ignore(x, pattern)` drops the samples that have a frame matching
#'   `pattern` (`-ignore`). Samples without frames have none, and stay.
#' - `profile_hide(x, pattern)` removes the matching frames from every stack
#'   (`-hide`): the other frames keep their order, with depths renumbered 1..n.
#' - `profile_show(x, pattern)` keeps only the matching frames of every stack
#'   (`-show`).
#' - `profile_show_from(x, pattern)` keeps, of every stack, the outermost
#'   matching frame and the frames it calls, and drops the samples without a
#'   matching frame (`-show_from`). Of a pprof Location with several lines
#'   (inlined functions), the lines outward of its outermost matching line go
#'   too, unless the pattern matched its mapping.
#' - `profile_prune_from(x, pattern)` drops the frames that the innermost
#'   matching frame calls, keeping the match (`-prune_from`). As in Go, the
#'   pattern is matched against function names only, with their argument
#'   lists cut off (the name up to its first `(`, so that C++ names such as
#'   `f(int)` match `"^f$"`; a Go method `pkg.(*T).m` becomes `pkg.`), not
#'   against file names, `"file:line"` or mappings as the other verbs match.
#' - `profile_filter_labels(x, focus, ignore)` keeps the samples with a label
#'   that `focus` selects and none that `ignore` selects (`-tagfocus`,
#'   `-tagignore`; see "Label filters").
#' - `profile_select_types(x, types)` keeps only the sample types `types`
#'   (their rows of `sample_values` and `sample_types`): every sample stays.
#'   A `default_sample_type` of `sources` that is not kept becomes `NA`. A
#'   type the profile lacks is an error that lists those it has (`go tool
#'   pprof -sample_index` shows one type; here several can stay). As it
#'   changes `sample_types` and `sources`, columns of your own in those two
#'   tables are not kept either (see "What the result keeps").
#'
#' A pattern or label filter that matches no sample gives a warning of class
#' `profile_warning_no_match` (Go prints "matched no samples"), also for
#' `profile_prune_from()`, about which Go says nothing; the result is then
#' computed as usual (no sample, for `profile_focus()`).
#'
#' A sample that `profile_hide()` or `profile_show()` leaves without frames is
#' dropped, as Go drops it, when the verb removed a whole location (for pprof
#' profiles: every line of a pprof Location); otherwise every sample stays.
#'
#' @section Patterns:
#' A pattern is a regular expression that a frame matches when it is found
#' anywhere in (not necessarily the whole of), as in Go:
#'
#' - the name of the frame's function (`name` in `functions`),
#' - the file name of its function (`filename` in `functions`),
#' - the file of its mapping (`filename` in `mappings`: the binary or shared
#'   library of a frame of a pprof profile);
#'
#' and, an addition of this package for R code, `"file:line"`: the function's
#' file name and the frame's line, when both are known (Rprof files recorded
#' with `line.profiling = TRUE`, pprof files with line numbers). So
#' `profile_focus(x, "alloc\\.R:23")` keeps the samples that ran line 23 of
#' `alloc.R`. The system name of a function (`system_name`) is not matched,
#' as Go does not match it: for pprof files it is the mangled name of the
#' compiler, for R frames it equals the name.
#'
#' Patterns are regular expressions with the syntax and the meaning of Go's
#' (RE2, what `go tool pprof` uses), matched in linear time: a pattern never
#' takes exponential time, whatever the names. The usual syntax is that of
#' other regular expressions (classes such as `[a-z]`, `\\d`, `\\w`,
#' `\\s`, `\\b`, written with two backslashes in R strings; anchors,
#' `(?i)`, `{m,n}`, alternation, `\\Q...\\E` for literal text), with Go's
#' meaning where regular expressions differ:
#'
#' - `\\d`, `\\w`, `\\s` and `\\b` are ASCII: `[0-9]`, `[0-9A-Za-z_]`,
#'   `[\\t\\n\\f\\r ]`, and a boundary next to an ASCII word character.
#'   `"work\\d"` does not match `work` followed by a digit of another
#'   script (such as the Arabic-Indic three, U+0663), and
#'   `"^caf\\w$"` does not match `café`; `\\pN` and `\\pL` match any
#'   digit and letter.
#' - `.` matches one character (not one byte), and `(?i)` ignores case in
#'   Unicode (`"(?i)café"` matches `CAFÉ`).
#' - What RE2 does not have is refused with an error of class
#'   `profile_error_argument` that names it: back-references (`\\1`),
#'   look-ahead and look-behind (`(?=`, `(?!`, `(?<=`, `(?<!`), atomic groups
#'   and possessive repetitions (`(?>`, `a*+`), more than 1000 repetitions.
#'
#' A character that has a meaning in regular expressions (`.`, `(`, `[`, `$`,
#' ...) is escaped with a backslash to be matched as itself: `"fib\\("`,
#' `"x\\$y"`. An empty pattern is an error. Each distinct name, file and
#' `"file:line"` of a profile is matched once. Before version 2.2 patterns
#' were Perl-compatible (`grepl(perl = TRUE)`).
#'
#' @section Label filters:
#' A label filter is `"key=value"`, or `"value"` for labels of any key, as
#' `go tool pprof -tagfocus` reads it:
#'
#' - A value that is a number or a range of numbers selects the samples with
#'   a numeric label (of `key`) in the range: `"64"` (exactly), `"1kb:"` (at
#'   least), `":10ms"` (at most), `"1kb:1mb"` (both ends included). A number
#'   is an integer with an optional unit; units of memory (`b`, `kb`, `mb`,
#'   `gb`, `tb`, `pb`; powers of 1024) and of time (`ns`, `us`, `ms`, `s`,
#'   `hr`; Go has no minutes) are converted to the label's unit, the
#'   `num_unit` of the key's labels in `sample_labels` or Go's default for
#'   the key (bytes for the keys `request` and `alignment`, else the key
#'   itself: a key `bytes` is in bytes). A label in a unit of another kind is
#'   not selected.
#' - Any other value is one or more regular expressions (Go's, as under
#'   "Patterns") separated by commas, for string labels. With a key, a sample
#'   is selected when one of its labels of that key has a value one of them
#'   matches
#'   (`"worker=fib|hash"`). Without a key, each expression must match
#'   `"key:value"` of some label of the sample (`"worker:fib"`).
#'
#' `profile_filter_labels(x, focus = "bytes=1kb:", ignore = "worker=fib")`
#' keeps the samples with a `bytes` label of at least 1 kB, except those of
#' the worker `fib`.
#'
#' @section What the result keeps:
#' The result is a valid v2 profile (a `dm`) whenever the input is: the kept
#' samples keep their ids, values, labels and any other columns the format
#' knows (such as `samples$time`); `meta`, `sources` and the other tables are
#' kept as they are, including rows that no sample uses any more (locations,
#' functions, mappings: ids stay those of the input, so a result can be joined
#' with its input) and tables of your own. Columns of your own in the four
#' per-sample tables (`samples`, `sample_values`, `sample_locations`,
#' `sample_labels`) are not kept, as their rows change; join them back by
#' `sample_id`. Long columns come back compact where their shape allows (see
#' "Compact columns" in [profile_v2]).
#'
#' A v1 profile is converted with [profile_v2_from_v1()] first. A profile
#' whose tables are in a database (see [profile_db_append()]) is read into
#' memory whole, and the result is a profile in memory: narrow a large one to
#' the runs you need with [dm::dm_filter()] first.
#'
#' @section Agreement with go tool pprof:
#' A profile written with [write_pprof()] after a verb shows the same `go tool
#' pprof -top` and `-traces` as `go tool pprof` with the flag on the profile
#' before the verb. Verbs apply in the order they are piped: `x |>
#' profile_focus("a") |> profile_hide("b")` is `-focus=a -hide=b`. Go applies
#' its flags in a fixed order, whatever their order on the command line:
#' `-focus`, `-ignore`, `-hide`, `-show`, then `-show_from`, `-tagfocus` and
#' `-tagignore`, then `-prune_from`; pipe the verbs in that order to get
#' Go's result for several flags. Differences:
#'
#' - When [write_pprof()] writes frames of R code, it puts them in a mapping
#'   named `[R]`; Go then matches patterns against that name too (a pattern
#'   such as `"R"` matches every R frame in Go, and only the frames whose name
#'   or file contains an `R` here).
#' - Go drops samples without frames from all its reports, filtered or not;
#'   `profile_focus()` drops them (they have no matching frame), the other
#'   verbs keep them unless said otherwise above.
#' - Go reports percentages of the profile before filtering; a filtered profile
#'   is a profile of its own, whose totals are its own.
#'
#' @param x A profile: a v2 `dm` (see [profile_v2]) or a v1 `profile_data`
#'   object (see [profile_v1]).
#' @param pattern A regular expression (a single string), matched as
#'   described under "Patterns".
#' @return A v2 profile (a `dm`).
#' @seealso [profile_summary()] and [profile_flamegraph()] to look at the
#'   result, [write_pprof()] and [write_rprof()] to write it.
#' @name profile_verbs
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' profile_summary(x, n = 3)
#'
#' # Where does the time go under sort()?
#' profile_focus(x, "^sort") |> profile_summary(n = 3)
#'
#' # Without the samples that compute Fibonacci numbers
#' profile_ignore(x, "^fib$") |> profile_summary(n = 3)
#'
#' # The stacks without the apply machinery, and only some functions
#' profile_hide(x, "^(FUN|lapply|vapply)$") |> profile_summary(sort = "total", n = 5)
#' profile_show(x, "^(spin|fib|sort)") |> profile_summary(sort = "total", n = 3)
#'
#' # A line of R code ("file:line"), in a profile recorded with line profiling
#' lines <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
#' nrow(lines$samples)
#' nrow(profile_focus(lines, "alloc\\.R:23")$samples)
#'
#' # pprof profiles: a Go package, and verbs composed and written to a file
#' cpu <- read_pprof(system.file("samples/pprof/cpu.pb.gz", package = "profile"))
#' profile_focus(cpu, "^crypto/") |> profile_summary(n = 3)
#' path <- tempfile(fileext = ".pb.gz")
#' cpu |>
#'   profile_focus("main\\.hashChain") |>
#'   profile_hide("^runtime\\.") |>
#'   write_pprof(path)
#'
#' # Only what runs from main.hashChain, and stacks cut below crypto/sha256
#' profile_show_from(cpu, "main\\.hashChain") |> profile_summary(n = 3)
#' profile_prune_from(cpu, "^crypto/sha256\\.block") |> profile_summary(n = 3)
#'
#' # Samples by their labels: a string label, and numeric ranges with units
#' profile_filter_labels(cpu, focus = "worker=hash") |> profile_summary(n = 3)
#' heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
#' profile_filter_labels(heap, focus = "bytes=1kb:") |>
#'   profile_summary(type = "alloc_space", n = 3)
#'
#' # One sample type of several
#' heap$sample_types$type
#' profile_select_types(heap, c("alloc_space", "inuse_space"))$sample_types
NULL

#' @rdname profile_verbs
#' @export
profile_focus <- function(x, pattern) {
  filter_by_pattern(x, pattern, "focus")
}

#' @rdname profile_verbs
#' @export
profile_ignore <- function(x, pattern) {
  filter_by_pattern(x, pattern, "ignore")
}

#' @rdname profile_verbs
#' @export
profile_hide <- function(x, pattern) {
  filter_by_pattern(x, pattern, "hide")
}

#' @rdname profile_verbs
#' @export
profile_show <- function(x, pattern) {
  filter_by_pattern(x, pattern, "show")
}

# ---------------------------------------------------------------------------
# Frames cut at a match, labels and sample types (-show_from, -prune_from,
# -tagfocus, -tagignore, -sample_index).

#' @rdname profile_verbs
#' @export
profile_show_from <- function(x, pattern) {
  filter_by_pattern(x, pattern, "show_from")
}

#' @rdname profile_verbs
#' @export
profile_prune_from <- function(x, pattern) {
  filter_by_pattern(x, pattern, "prune_from", kinds = "simple_name")
}

#' @rdname profile_verbs
#' @param focus,ignore A label filter (a single string, or `NULL` for none),
#'   as described under "Label filters".
#' @export
profile_filter_labels <- function(x, focus = NULL, ignore = NULL) {
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't filter {.arg x} by its labels.", {
    tables <- verb_tables(x, call)
    filters <- list(focus = focus, ignore = ignore)
    for (arg in names(filters)) check_label_filter(filters[[arg]], arg, call)
    given <- !vapply(filters, is.null, logical(1))
    text <- function(f) if (is.null(f)) NA_character_ else as_valid_utf8(f)
    apply_verb(tables, function(bundle, compact) {
      ffi_profile_apply_label_filter(bundle, text(focus), text(ignore), compact)
    }, call = call, patterns = vapply(filters, text, ""), reported = given)
  })
}

#' @rdname profile_verbs
#' @param types The names of the sample types to keep (a character vector,
#'   values of `sample_types$type`).
#' @export
profile_select_types <- function(x, types) {
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't select sample types of {.arg x}.", {
    tables <- verb_tables(x, call)
    if (!is.character(types) || !length(types) || anyNA(types)) {
      abort_argument(
        paste(
          "{.arg types} must be a character vector of sample types without NA, not",
          "{.obj_type_friendly {types}}."
        ),
        types = types, call = call
      )
    }
    apply_verb(tables, function(bundle, compact) {
      ffi_profile_select_types(bundle, as_valid_utf8(types), compact)
    }, call = call, changes = c("sample_values", "sample_types", "sources"))
  })
}

# `filter` (the argument `arg` of profile_filter_labels()): NULL or a single
# non-empty string.
check_label_filter <- function(filter, arg, call) {
  if (!is.null(filter) && (!rlang::is_string(filter) || !nzchar(filter))) {
    abort_argument(
      paste(
        "{.arg {arg}} must be NULL or a single non-empty string (a label filter),",
        "not {.obj_type_friendly {filter}}."
      ),
      arg = arg, filter = filter, call = call
    )
  }
}

# ---------------------------------------------------------------------------
# The verbs' shared steps. A verb takes the tables of its input
# (verb_tables()), works out which locations its pattern matches
# (locations_matching()), and has its native function change the per-sample
# tables (apply_verb()); src/rust/core/src/verbs/ does the work.
# filter_by_pattern() is the three steps for the verbs that take a pattern.

# The verbs with a pattern: ffi_profile_filter() does the verb `verb`
# ("focus", "ignore", "hide", "show") with the flags of the locations that
# `pattern` matches in their texts of the kinds `kinds`.
filter_by_pattern <- function(x, pattern, verb, kinds = frame_texts, call = rlang::caller_env()) {
  message <- "Can't apply {.code {verb}} to {.arg x}."
  with_profile_errors("invalid", message, verb = verb, call = call, {
    tables <- verb_tables(x, call)
    matched <- locations_matching(tables, check_pattern(pattern, call), kinds, call = call)
    apply_verb(
      tables, function(bundle, compact) ffi_profile_filter(bundle, matched, verb, compact),
      call = call, patterns = pattern
    )
  })
}

# The tables a verb starts from: a v2 profile's (checked as R sees them:
# tables, columns, types), or those of a v1 profile converted to v2. `arg`
# names the argument in errors. A profile in a database is read into memory
# whole (local_profile(), R/db.R): a verb's result is a new profile, which
# lives in memory.
verb_tables <- function(x, call, arg = "x") {
  if (inherits(x, "profile_data")) {
    x <- profile_v2_from_v1(x)
  } else if (!is_v2(x)) {
    abort_not_profile(x, "{.arg {arg}}", arg = arg, call = call)
  }
  check_v2_tables(local_profile(x), call = call)
}

# `pattern` as a valid UTF-8 string, after checking that it is a non-empty
# string that Go's regular expressions accept (RE2 syntax, checked in Rust: see
# "Patterns" in ?profile_verbs).
check_pattern <- function(pattern, call) {
  if (!rlang::is_string(pattern) || !nzchar(pattern)) {
    abort_argument(
      paste(
        "{.arg pattern} must be a single non-empty string (a regular expression), not",
        "{.obj_type_friendly {pattern}}."
      ),
      pattern = pattern, call = call
    )
  }
  pattern <- as_valid_utf8(pattern)
  checked <- ffi_profile_check_pattern(pattern)
  if (!isTRUE(checked$ok)) {
    abort_argument(
      "{.arg pattern} is not a regular expression that Go's pprof accepts: {.val {pattern}}.",
      pattern = pattern, detail = checked$message, call = call
    )
  }
  pattern
}

# The texts of a frame that a pattern is matched against (see "Patterns" in
# ?profile_verbs and `LocationTexts` in the core).
frame_texts <- c("name", "filename", "mapping", "file_line")

# One flag per row of `locations`: whether `pattern` is found in one of the
# location's texts of the kinds `kinds`. The core matches each distinct text
# once, with Go's regular expressions.
locations_matching <- function(tables, pattern, kinds = frame_texts, call) {
  sent <- intersect(c("locations", "functions", "mappings"), names(tables))
  rust_value(
    ffi_profile_locations_matching(bundle_from_tables(tables[sent]), pattern, kinds),
    "Can't match {.arg pattern} against the locations of {.arg x}.",
    call = call
  )
}

# Runs a verb's native function, `run(bundle, compact)`, on the tables
# `changes` of `tables` (sent with the tables `with`: `locations`, where the
# verbs look frames up), and returns the profile with the changed tables in
# their place. The other tables stay as they are; each changed table keeps the
# columns it had that the format knows. A verb with patterns returns
# `list(bundle, matched)`: a `profile_warning_no_match` for each of its
# `patterns` (where `reported`) that matched no sample. The result keeps the
# totals of the profile before the first verb that left samples or values out
# (with_unfiltered_totals(); a verb that keeps every value's total, as
# aggregation does, says so by `same_totals`).
apply_verb <- function(tables, run, call, changes = per_sample_tables, patterns = NULL,
                       reported = TRUE, with = "locations", same_totals = FALSE) {
  sent <- intersect(c(changes, with), names(tables))
  result <- rust_value(
    run(bundle_from_tables(tables[sent]), compact_columns_option(call)),
    "Can't change the profile.",
    call = call
  )
  bundle <- result
  if (!is.null(patterns)) {
    bundle <- result$bundle
    warn_no_match(unname(patterns[reported & !result$matched]), call)
  }
  changed <- decode_bundle(bundle)
  before <- tables
  for (t in intersect(changes, names(tables))) {
    tables[[t]] <- changed[[t]][intersect(names(tables[[t]]), names(changed[[t]]))]
  }
  if (!same_totals) {
    tables <- with_unfiltered_totals(before, tables)
  }
  dm_from_v2_tables(tables)
}

# A warning for patterns that matched no sample, as go tool pprof prints
# "<flag> expression matched no samples".
warn_no_match <- function(patterns, call) {
  if (length(patterns)) {
    cli::cli_warn(
      "{cli::qty(length(patterns))}The pattern{?s} {.val {patterns}} matched no sample{?s}.",
      class = c("profile_warning_no_match", "profile_warning"), patterns = patterns, call = call
    )
  }
}
