#' Manipulate profiles: focus, ignore, hide, show
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
#' Patterns are Perl-compatible regular expressions (`grepl(perl = TRUE)`),
#' where Go uses RE2. The usual syntax is the same in both (classes such as
#' `[a-z]` and `\\d`, `\\w`, `\\b`, written with two backslashes in R
#' strings; anchors, `(?i)`, `{m,n}`, alternation); PCRE also accepts
#' look-around and back-references, which RE2 refuses, and can take
#' exponential time on pathological patterns where RE2 is linear. A character
#' that has a meaning in regular expressions (`.`, `(`, `[`, `$`, ...) is
#' escaped with a backslash to be matched as itself: `"fib\\("`,
#' `"x\\$y"`. An empty pattern, or one that does not compile, is an error.
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
#' A v1 profile is converted with [profile_v2_from_v1()] first.
#'
#' @section Agreement with go tool pprof:
#' A profile written with [write_pprof()] after a verb shows the same `go tool
#' pprof -top` and `-traces` as `go tool pprof` with the flag on the profile
#' before the verb. Verbs apply in the order written: `x |> profile_focus("a")
#' |> profile_hide("b")` is `-focus=a -hide=b` (Go applies `-focus` and
#' `-ignore` before `-hide` and `-show`, whatever their order on the command
#' line). Differences:
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
# The verbs' shared steps. A verb takes the tables of its input
# (verb_tables()), works out which locations its pattern matches
# (locations_matching()), and has its native function change the per-sample
# tables (apply_verb()); src/rust/core/src/transform/ does the work.
# filter_by_pattern() is the three steps for the verbs that take a pattern.

# The verbs with a pattern: ffi_profile_filter() does the verb `verb`
# ("focus", "ignore", "hide", "show") with the flags of the locations that
# `pattern` matches in their texts of the kinds `kinds`.
filter_by_pattern <- function(x, pattern, verb, kinds = frame_texts, call = rlang::caller_env()) {
  with_profile_errors("invalid", "Can't apply {.code {verb}} to {.arg x}.", verb = verb, call = call, {
    tables <- verb_tables(x, call)
    matched <- locations_matching(tables, check_pattern(pattern, call), kinds, call = call)
    apply_verb(tables, function(bundle, compact) ffi_profile_filter(bundle, matched, verb, compact), call = call)
  })
}

# The tables a verb starts from: a v2 profile's (checked as R sees them:
# tables, columns, types), or those of a v1 profile converted to v2.
verb_tables <- function(x, call) {
  if (inherits(x, "profile_data")) {
    x <- profile_v2_from_v1(x)
  } else if (!is_v2(x)) {
    abort_argument(
      "{.arg x} must be a profile (a v2 {.cls dm} or a v1 {.cls profile_data}), not {.obj_type_friendly {x}}.",
      x = x, call = call
    )
  }
  check_v2_tables(x, call = call)
}

# `pattern` as a valid UTF-8 string, after checking that it is a non-empty
# string that compiles as a PCRE regular expression.
check_pattern <- function(pattern, call) {
  if (!rlang::is_string(pattern) || !nzchar(pattern)) {
    abort_argument(
      "{.arg pattern} must be a single non-empty string (a regular expression), not {.obj_type_friendly {pattern}}.",
      pattern = pattern, call = call
    )
  }
  pattern <- as_valid_utf8(pattern)
  problem <- tryCatch(
    {
      grepl(pattern, "", perl = TRUE)
      NULL
    },
    warning = function(w) conditionMessage(w),
    error = function(e) conditionMessage(e)
  )
  if (!is.null(problem)) {
    abort_argument(
      "{.arg pattern} is not a valid regular expression: {.val {pattern}}.",
      pattern = pattern, detail = gsub("\\s+", " ", trimws(problem)), call = call
    )
  }
  pattern
}

# The texts of a frame that a pattern is matched against (see "Patterns" in
# ?profile_verbs and `LocationTexts` in the core).
frame_texts <- c("name", "filename", "mapping", "file_line")

# One flag per row of `locations`: whether `pattern` is found in one of the
# location's texts of the kinds `kinds`. The core lists each distinct text
# once, and which of them each location has; R matches the texts.
locations_matching <- function(tables, pattern, kinds = frame_texts, call) {
  sent <- intersect(c("locations", "functions", "mappings"), names(tables))
  texts <- rust_value(
    ffi_profile_location_texts(bundle_from_tables(tables[sent])),
    "Can't read the locations of {.arg x}.",
    call = call
  )
  found <- grepl(pattern, texts$texts, perl = TRUE)
  matched <- logical(length(texts$name))
  for (kind in kinds) {
    at <- found[texts[[kind]]]
    matched <- matched | (!is.na(at) & at)
  }
  matched
}

# The tables a verb changes: whole samples, their values, stacks and labels.
per_sample_tables <- c("samples", "sample_values", "sample_locations", "sample_labels")

# Runs a verb's native function, `run(bundle, compact)`, on the per-sample
# tables of `tables` (sent with `locations`, where the verbs look frames up),
# and returns the profile with the changed tables in their place. The other
# tables stay as they are; each changed table keeps the columns it had that
# the format knows.
apply_verb <- function(tables, run, call) {
  sent <- intersect(c(per_sample_tables, "locations"), names(tables))
  bundle <- rust_value(
    run(bundle_from_tables(tables[sent]), compact_columns_option(call)),
    "Can't change the profile.",
    call = call
  )
  changed <- decode_bundle(bundle)
  for (t in intersect(per_sample_tables, names(tables))) {
    tables[[t]] <- changed[[t]][intersect(names(tables[[t]]), names(changed[[t]]))]
  }
  dm_from_v2_tables(tables)
}
