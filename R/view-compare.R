# The comparison of profile_view(x, base = ): profile_compare() by function,
# written as JSON into the view's data (member `compare`), where the page
# (inst/htmlwidgets/lib/profile-view/pv-compare.js and pv-compare-table.js)
# colours x's frames by their function's change and lists the rows. The page
# computes nothing of the comparison: R's rows are its one source.

# The comparison of `x` with `base` that the view shows: by function, of the
# sample type `type` (NULL: profile_compare()'s default).
view_comparison <- function(x, base, type, level, threshold) {
  profile_compare(x, base, by = "function", type = type, level = level, threshold = threshold)
}

# The JSON text of a comparison (a `profile_comparison`): what was compared,
# the totals, and the rows as columns, in profile_compare()'s order.
comparison_json <- function(cmp) {
  totals <- attr(cmp, "totals")
  runs <- attr(cmp, "runs")
  json_object(list(
    type = json_string(attr(cmp, "sample_type")),
    unit = json_string(attr(cmp, "unit")),
    value = json_string(attr(cmp, "value")),
    level = json_number(attr(cmp, "level")),
    threshold = json_number(attr(cmp, "threshold")),
    runs_x = json_number(runs[["x"]]),
    runs_base = json_number(runs[["base"]]),
    method = json_string(attr(cmp, "method")),
    speed = json_number(attr(cmp, "speed")),
    totals = json_object(lapply(
      totals[c("base", "x", "delta", "ratio", "lower", "upper", "p_value")], json_number
    )),
    rows = json_object(list(
      name = json_array(json_string(as_valid_utf8(cmp$name))),
      base = json_array(json_number(cmp$base)),
      x = json_array(json_number(cmp$x)),
      delta = json_array(json_number(cmp$delta)),
      ratio = json_array(json_number(cmp$ratio)),
      lower = json_array(json_number(cmp$lower)),
      upper = json_array(json_number(cmp$upper)),
      p_value = json_array(json_number(cmp$p_value)),
      change = json_array(json_string(cmp$change))
    ))
  ))
}

# The view's data (a JSON object, from the core) with the comparison as one
# more member.
with_comparison <- function(json, cmp, call = rlang::caller_env()) {
  n <- nchar(json)
  if (substr(json, n, n) != "}") {
    abort_profile("internal", "The view's data is not a JSON object.", call = call)
  }
  paste0(substr(json, 1L, n - 1L), ",\"compare\":", comparison_json(cmp), "}")
}

# ---- JSON text of R values (numbers exact, strings escaped) ------------------

# Numbers with the digits that give the same double back; NA, NaN and the
# infinities as null (the page reads a ratio of null as "new").
json_number <- function(x) {
  x <- as.double(x)
  out <- sprintf("%.17g", x)
  out[!is.finite(x)] <- "null"
  out
}

# Strings (valid UTF-8) as JSON strings, escaped as the core escapes them
# (src/rust/core/src/io/json.rs): the quote and the backslash, and as \uXXXX
# the control characters, `<`, `>` and `&` (so that no text closes the page's
# <script> element) and the line separators; NA as null.
json_string <- function(x) {
  x <- enc2utf8(as.character(x))
  out <- vapply(x, function(s) {
    if (is.na(s)) {
      return("null")
    }
    codes <- utf8ToInt(s)
    escaped <- intToUtf8(codes, multiple = TRUE)
    special <- codes < 32L | codes %in% c(38L, 60L, 62L, 0x2028L, 0x2029L)
    escaped[special] <- sprintf("\\u%04x", codes[special])
    escaped[codes == 34L] <- "\\\""
    escaped[codes == 92L] <- "\\\\"
    paste0("\"", paste(escaped, collapse = ""), "\"")
  }, character(1), USE.NAMES = FALSE)
  enc2utf8(out)
}

json_array <- function(items) paste0("[", paste(items, collapse = ","), "]")

# A named list of JSON texts as an object.
json_object <- function(members) {
  paste0("{", paste0(json_string(names(members)), ":", unlist(members), collapse = ","), "}")
}
