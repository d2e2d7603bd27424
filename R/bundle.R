# Moving profiles across the Rust boundary. A "bundle" is
# list(strings = <chr>, tables = list(<table> = list(<col> = <vector>))) where
# character columns travel as integer codes into `strings`.

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

# Tables of a v2 dm (or a plain named list of data frames) as a bundle.
bundle_from_tables <- function(tables) {
  schema <- v2_schema()
  known <- intersect(names(tables), schema$tables)
  # The distinct strings of each column first: columns such as sample_values$type
  # repeat a few strings a million times, and pasting all columns together before
  # unique() cost three times as much.
  chr_values <- list()
  for (t in known) {
    for (col in names(tables[[t]])) {
      v <- tables[[t]][[col]]
      if (is.character(v)) chr_values[[length(chr_values) + 1L]] <- vctrs::vec_unique(v)
    }
  }
  strings <- unique(unlist(chr_values, use.names = FALSE))
  strings <- strings[!is.na(strings)]
  clean <- as_valid_utf8(strings)
  out <- lapply(tables[known], function(df) {
    cols <- as.list(df)
    for (col in names(cols)) {
      v <- cols[[col]]
      if (is.character(v)) {
        cols[[col]] <- match(v, strings, incomparables = NA)
      } else if (is.factor(v)) {
        # not a valid column type; let validation report it as such
        cols[[col]] <- as.character(v)
      } else {
        attributes(v) <- NULL
        cols[[col]] <- v
      }
    }
    cols
  })
  list(strings = clean, tables = out)
}

# A bundle from Rust as a named list of tibbles; its character columns are
# integer codes into `strings`, and the schema says which columns those are.
decode_bundle <- function(bundle) {
  schema <- v2_schema()
  strings <- bundle$strings
  tables <- bundle$tables
  for (t in names(tables)) {
    types <- schema$columns[[t]]$col_type
    names(types) <- schema$columns[[t]]$name
    cols <- tables[[t]]
    for (col in names(cols)) {
      if (identical(types[[col]], "character")) {
        cols[[col]] <- strings[cols[[col]]]
      } else if (is_one_to_n(cols[[col]])) {
        # R's compact sequence takes no memory per row (ids of samples, locations,
        # functions and sources are usually 1..n)
        cols[[col]] <- seq_len(length(cols[[col]]))
      }
    }
    nrow <- if (length(cols)) length(cols[[1]]) else 0L
    tables[[t]] <- tibble::new_tibble(cols, nrow = nrow)
  }
  tables
}

# Is `v` the integers 1, 2, ..., length(v)? (One pass, no allocation.)
is_one_to_n <- function(v) {
  n <- length(v)
  is.integer(v) && n > 1L && is.null(attributes(v)) &&
    identical(v[[1L]], 1L) && identical(v[[n]], n) && !anyNA(v) &&
    !is.unsorted(v, strictly = TRUE)
}
