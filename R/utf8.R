# Strings as the package passes them on: to Rust, into messages, into tables.
# These two functions use nothing else of the package, so that the files that
# need them (errors, bundles, readers, verbs) use this one and not each other.

# Replaces what R cannot pass on as UTF-8: strings in other encodings are converted,
# and invalid bytes are written as <xx> (R's own `iconv(sub = "byte")` rule).
as_valid_utf8 <- function(x) {
  x <- enc2utf8(x)
  bad <- !is.na(x) & !validUTF8(x)
  if (any(bad)) {
    x[bad] <- iconv(x[bad], "UTF-8", "UTF-8", sub = "byte")
  }
  x
}

# `x` with valid UTF-8 strings if it is character, as it is otherwise.
utf8_if_character <- function(x) {
  if (is.character(x)) as_valid_utf8(x) else x
}
