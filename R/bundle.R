# Moving profiles across the Rust boundary. A "bundle" is
# list(strings = <chr>, tables = list(<table> = list(<col> = <vector>))) where
# character columns travel as integer codes into `strings`.

# Tables of a v2 dm (or a plain named list of data frames) as a bundle.
#
# In a UTF-8 session character columns go to Rust as they are: Rust converts each
# distinct string once (R caches strings, so it recognises repeats by address),
# with the rules of as_valid_utf8(). Coding them here cost two passes over every
# column (see bench/README.md). Elsewhere ("native" strings need R's own
# conversion) they travel as codes into `strings`.
bundle_from_tables <- function(tables) {
  schema <- v2_schema()
  known <- intersect(names(tables), schema$tables)
  as_codes <- !isTRUE(l10n_info()[["UTF-8"]])
  strings <- if (as_codes) bundle_strings(tables[known], schema) else character()
  out <- lapply(known, function(t) {
    # Only the columns the schema knows cross (Rust ignores others): their names
    # are plain ASCII, whatever names a user's extra columns have.
    df <- tables[[t]]
    bundle_columns(as.list(df)[intersect(names(df), schema$columns[[t]]$name)], strings, as_codes)
  })
  names(out) <- known
  list(strings = as_valid_utf8(strings), tables = out)
}

# The distinct strings of the character columns of `tables` that the schema
# knows (no NA): what the codes of a bundle point into.
bundle_strings <- function(tables, schema) {
  chr_values <- list()
  for (t in names(tables)) {
    for (col in intersect(names(tables[[t]]), schema$columns[[t]]$name)) {
      v <- tables[[t]][[col]]
      if (is.character(v)) chr_values[[length(chr_values) + 1L]] <- vctrs::vec_unique(v)
    }
  }
  strings <- unique(unlist(chr_values, use.names = FALSE))
  strings[!is.na(strings)]
}

# The columns `cols` (a list) as they cross: character columns as they are,
# or as codes into `strings` if `as_codes`; factors as character; other
# columns without attributes.
bundle_columns <- function(cols, strings, as_codes) {
  for (col in names(cols)) {
    v <- cols[[col]]
    if (is.character(v)) {
      if (as_codes) cols[[col]] <- match(v, strings, incomparables = NA)
    } else if (is.factor(v)) {
      # not a valid column type; let validation report it as such
      cols[[col]] <- as.character(v)
    } else if (!is.null(attributes(v))) {
      # (only then: stripping NULL attributes still copies a shared column)
      attributes(v) <- NULL
      cols[[col]] <- v
    }
  }
  cols
}

# Whether Rust may send compact columns (see "Compact columns" in ?profile_v2):
# the option `profile.compact`, TRUE unless set to FALSE.
compact_columns_option <- function(call = rlang::caller_env()) {
  compact <- getOption("profile.compact", TRUE)
  if (!rlang::is_bool(compact)) {
    abort_argument(
      "The option {.code profile.compact} must be {.code TRUE} or {.code FALSE}.",
      call = call
    )
  }
  compact
}

# A bundle from Rust as a named list of tibbles; its character columns are
# integer codes into `strings` (the schema says which columns those are) or,
# when compact, character vectors already. Rust sends the compact columns (ids
# 1..n, per-sample runs, repeated sample types) as ALTREP vectors of
# src/altrep.c, unless the option `profile.compact` is FALSE; they are passed
# on untouched.
decode_bundle <- function(bundle) {
  schema <- v2_schema()
  strings <- bundle$strings
  tables <- bundle$tables
  for (t in names(tables)) {
    types <- schema$columns[[t]]$col_type
    names(types) <- schema$columns[[t]]$name
    cols <- tables[[t]]
    for (col in names(cols)) {
      if (identical(types[[col]], "character") && is.integer(cols[[col]])) {
        cols[[col]] <- strings[cols[[col]]]
      }
    }
    nrow <- if (length(cols)) length(cols[[1]]) else 0L
    tables[[t]] <- tibble::new_tibble(cols, nrow = nrow)
  }
  tables
}
