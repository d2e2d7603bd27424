# Patterns are Go's regular expressions (RE2): the verbs against go tool pprof
# on a Go CPU profile whose function names are not ASCII (main.größe,
# main.café, main.work٣ next to main.work3, main.δοκιμή; data-raw/go/), for
# patterns where Go's regexp, PCRE (grepl(perl = TRUE), which 2.1 used) and
# the defaults of Rust's regex crate differ.

unicode_profile <- function() sample_path("pprof-unicode", "unicode.pb.gz")

test_that("the profile has the names these tests are about", {
  names <- read_pprof(unicode_profile())$functions$name
  non_ascii <- c("main.größe", "main.café", "main.work\u0663", "main.work3", "main.δοκιμή")
  expect_true(all(non_ascii %in% names))
})

test_that("patterns mean what they mean in go tool pprof, on names that are not ASCII", {
  skip_if_no_go()
  original <- unicode_profile()
  x <- read_pprof(original)
  patterns <- c(
    # \d is ASCII in Go (and PCRE): main.work3, not main.work٣ (Rust's
    # default: both)
    "work\\d",
    "work[\\d]$",
    # \w is ASCII: é, ö, ß are no word characters (Rust's default: they are)
    "^main\\.caf\\w$|work\\d$",
    "gr\\w\\wße|δοκιμή$",
    "^main\\.caf\\W$",
    # `.` is one character, not one byte (é is two bytes)
    "main\\.work.$",
    "^main\\.caf.$",
    # case is ignored in Unicode
    "(?i)MAIN\\.CAFÉ",
    # \b is a boundary next to an ASCII word character: between f and é
    "caf\\b",
    "\\bwork\\B",
    # && is two characters in a Go class (an intersection in Rust's)
    "[é&&x]",
    # quoted text (Rust's regex has no \Q)
    "\\Qmain.café\\E",
    # a { that begins no repetition is a literal in Go (an error in Rust's)
    "work3{1}|caf{é"
  )
  expect_verbs_agree_with_go(x, original, patterns, "unicode.pb.gz")
})

test_that("label filters' regular expressions mean what they mean in go tool pprof", {
  skip_if_no_go()
  original <- unicode_profile()
  x <- read_pprof(original)
  filters <- c("stage=^work\\d$|^caf.$", "stage=gr\\w|^work\\d", "stage:caf\\w|stage:work\\d")
  for (filter in filters) {
    ours <- write_pprof_tmp(quietly_matching(profile_filter_labels(x, focus = filter)))
    expect_go_agrees(original, ours, paste0("-tagfocus=", filter))
    ours <- write_pprof_tmp(quietly_matching(profile_filter_labels(x, ignore = filter)))
    expect_go_agrees(original, ours, paste0("-tagignore=", filter))
  }
})

test_that(paste(
  "a construct that Go's regexp refuses is an argument error that names it, as go tool",
  "pprof refuses it"
), {
  skip_if_no_go()
  original <- unicode_profile()
  x <- read_pprof(original)
  refused <- c(
    "(work)\\1" = "back-reference",
    "work(?=3)" = "look-around",
    "(?<!caf)é" = "look-around",
    "work*+" = "repetition operator",
    "(?>work)" = "atomic group",
    "(?x)work 3" = "flag `x`"
  )
  for (pattern in names(refused)) {
    out <- suppressWarnings(system2(
      "go", c("tool", "pprof", "-top", shQuote(paste0("-focus=", pattern)), shQuote(original)),
      stdout = TRUE, stderr = TRUE
    ))
    expect_false(is.null(attr(out, "status")), info = pattern)
    expect_true(any(grepl("error parsing regexp", out, fixed = TRUE)), info = pattern)

    verbs <- list(
      profile_focus, profile_ignore, profile_hide, profile_show, profile_show_from,
      profile_prune_from
    )
    for (verb in verbs) {
      err <- expect_error(verb(x, pattern), class = "profile_error_argument")
      expect_match(conditionMessage(err), refused[[pattern]], fixed = TRUE, info = pattern)
    }
    err <- expect_error(
      profile_filter_labels(x, focus = paste0("stage=", pattern)),
      class = "profile_error_argument"
    )
    expect_match(conditionMessage(err), refused[[pattern]], fixed = TRUE, info = pattern)
  }
})
