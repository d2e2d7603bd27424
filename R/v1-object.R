# The v1 object (class profile_data), the format of profile 1.0.x: its class,
# printing, summary and plot methods, validation, and its dm view. The
# conversions between v1 and v2 are in R/v1-convert.R; 1.0.x's internal names
# are in R/v1-legacy.R.

#' The v1 profile format (profile 1.0.x)
#'
#' @description
#' Version 1 of the format is what profile 1.0.x returned and what
#' `read_rprof(path, version = "1.0")` and `read_pprof(path, version = "1.0")`
#' still return: an object of class `"profile_data"`, a named list of
#' [tibbles][tibble::tibble()] with these components, in this order:
#'
#' - `meta`: columns `key` and `value` (character), one row: `key` is
#'   `"version"`, `value` a version number such as `"1.0"`.
#' - `sample_types`: columns `type` and `unit` (character), one row:
#'   `"samples"` and `"count"`.
#' - `samples`: column `value` (integer, greater than zero: how many consecutive
#'   samples had this stack) and `locations`, a list of tibbles with one integer
#'   column `location_id`, listing the stack innermost frame first.
#' - `locations`: columns `location_id`, `function_id` and `line` (integer);
#'   `location_id` is unique, `function_id` refers to `functions` (or is `NA`),
#'   `line` is zero when unknown and never negative.
#' - `functions`: columns `function_id` (integer, unique), `name`, `system_name`,
#'   `filename` (character) and `start_line` (integer, zero when unknown, never
#'   negative). `name` and `system_name` are never empty.
#'
#' Each table may have further columns after these whose names start with a dot,
#' and the list may have further components after these whose names start with a
#' dot; [validate_profile()] ignores them.
#'
#' v1 holds one sample type only (`samples`/`count`) and aggregates consecutive
#' identical stacks into one row with a `value`. The v2 format (see
#' [new_profile_v2()]) keeps every raw sample, its source and every sample type;
#' [profile_v2_from_v1()] converts v1 objects to it. Functions that take a
#' profile ([write_rprof()], [write_pprof()], [dm_from_profile()]) accept either
#' version.
#'
#' @name profile_v1
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"), version = "1.0")
#' x
#' x$samples
#' x$samples$locations[[1]]
#' validate_profile(x)
NULL

v1_tables <- c("meta", "sample_types", "samples", "locations", "functions")

v1_required_columns <- list(
  meta = c("key", "value"),
  sample_types = c("type", "unit"),
  samples = c("value", "locations"),
  locations = c("location_id", "function_id", "line"),
  functions = c("function_id", "name", "system_name", "filename", "start_line")
)

# A v1 object from its five tables (and any dotted components after them).
new_profile_data <- function(tables) {
  structure(tables, class = "profile_data")
}

#' @export
format.profile_data <- function(x, ...) {
  paste0("Profile data: ", nrow(x$samples), " samples")
}

#' @export
print.profile_data <- function(x, ...) {
  cat(format(x, ...), sep = "\n")
  invisible(x)
}

# ---------------------------------------------------------------------------
# Validation

# The names up to and including the last one that does not start with a dot:
# 1.0.x's notion of the "required part" of a list of names. NULL if every name
# starts with a dot (or there are none), which 1.0.x rejects.
names_before_dotted_tail <- function(nms) {
  undotted <- grep("^[^.]", nms)
  if (length(undotted) == 0L) {
    return(NULL)
  }
  nms[seq_len(max(undotted))]
}

# Whether `have == want` holds element by element with R's recycling, as
# 1.0.x's stopifnot(names == c(...)) compared column names. It accepts a few
# odd layouts (the required names repeated) that 1.0.x accepted too.
names_match_recycled <- function(have, want) {
  n <- max(length(have), length(want))
  isTRUE(all(rep_len(have, n) == rep_len(want, n)))
}

# The first position where a row check fails (NA counts as failing), or NA.
first_failing <- function(ok) {
  which(is.na(ok) | !ok)[1L]
}

# Checks a v1 object with the rules of profile 1.0.x's validate_profile(): the
# same objects are accepted and rejected. Errors name the table, the column
# and the first offending row.
validate_v1 <- function(x, call = rlang::caller_env()) {
  invalid <- function(message, ...) {
    abort_profile("invalid", message, ..., call = call)
  }

  if (!is.list(x)) {
    invalid(
      paste(
        "A profile must be a v2 {.cls dm} or a v1 {.cls profile_data} list, not",
        "{.obj_type_friendly {x}}."
      ),
      x = x
    )
  }
  if (!inherits(x, "profile_data")) {
    cls <- class(x)
    invalid("A v1 profile must have class {.cls profile_data}, not {.cls {cls}}.", cls = cls)
  }
  check_v1_components(x, invalid)
  check_v1_meta(x, invalid)
  stacks <- check_v1_samples(.subset2(x, "samples"), invalid)
  locations <- .subset2(x, "locations")
  check_v1_locations(locations, invalid)
  functions <- .subset2(x, "functions")
  check_v1_functions(functions, invalid)

  # References, once both sides are known to be well-formed. `%in%` matches NA
  # to NA, as 1.0.x did.
  check_v1_stack_references(stacks, .subset2(locations, "location_id"), invalid)
  function_id <- .subset2(locations, "function_id")
  bad <- first_failing(is.na(function_id) | function_id %in% .subset2(functions, "function_id"))
  if (!is.na(bad)) {
    id <- function_id[[bad]]
    invalid(
      paste(
        "Table {.field locations}, column {.field function_id}, row {bad}: function {id} is not",
        "in table {.field functions}."
      ),
      bad = bad, id = id
    )
  }
  invisible(x)
}

# The tables `meta` (a version) and `sample_types` (samples/count) of a v1
# object.
check_v1_meta <- function(x, invalid) {
  meta <- check_v1_one_row_table(x, "meta", "the version", c(key = "version"), invalid)
  version <- .subset2(meta, "value")
  if (!version_parses(version)) {
    invalid(
      paste(
        "Table {.field meta}, column {.field value}, row 1: {.val {version}} is not a version",
        "number (see {.fn package_version})."
      ),
      version = version
    )
  }
  check_v1_one_row_table(x, "sample_types", "samples/count", c(type = "samples", unit = "count"),
    invalid,
    note = "v1 holds only sample counts; the v2 format holds any sample type."
  )
}

# The table `samples` of a v1 object, and the stacks in its `locations`
# column, which it returns.
check_v1_samples <- function(samples, invalid) {
  check_v1_table_columns(samples, "samples", invalid)
  check_v1_column_type(samples, "samples", "value", is.integer, "an integer vector", invalid)
  check_v1_column_type(samples, "samples", "locations", is.list, "a list of tibbles", invalid)
  check_v1_rows(
    samples, "samples", "value", .subset2(samples, "value") > 0,
    "must be greater than zero, not {.val {value}}.", invalid
  )
  stacks <- .subset2(samples, "locations")
  check_v1_stacks(stacks, invalid)
  stacks
}

check_v1_locations <- function(locations, invalid) {
  check_v1_table_columns(locations, "locations", invalid)
  for (col in v1_required_columns$locations) {
    check_v1_column_type(locations, "locations", col, is.integer, "an integer vector", invalid)
  }
  check_v1_rows(
    locations, "locations", "location_id", !duplicated(.subset2(locations, "location_id")),
    "{.val {value}} already occurs in an earlier row (it must be unique).", invalid
  )
  line <- .subset2(locations, "line")
  check_v1_rows(
    locations, "locations", "line", is.na(line) | line >= 0,
    "must not be negative, not {.val {value}}.", invalid
  )
}

check_v1_functions <- function(functions, invalid) {
  check_v1_table_columns(functions, "functions", invalid)
  check_v1_column_type(
    functions, "functions", "function_id", is.integer, "an integer vector", invalid
  )
  for (col in c("name", "system_name", "filename")) {
    check_v1_column_type(functions, "functions", col, is.character, "a character vector", invalid)
  }
  check_v1_column_type(
    functions, "functions", "start_line", is.integer, "an integer vector", invalid
  )
  check_v1_rows(
    functions, "functions", "function_id", !duplicated(.subset2(functions, "function_id")),
    "{.val {value}} already occurs in an earlier row (it must be unique).", invalid
  )
  check_v1_rows(
    functions, "functions", "name", .subset2(functions, "name") != "",
    "must not be empty or NA, not {.val {value}}.", invalid
  )
  check_v1_rows(
    functions, "functions", "system_name", .subset2(functions, "system_name") != "",
    "must not be empty or NA, not {.val {value}}.", invalid
  )
  check_v1_rows(
    functions, "functions", "start_line", .subset2(functions, "start_line") >= 0,
    "must not be negative or NA, not {.val {value}}.", invalid
  )
}

check_v1_components <- function(x, invalid) {
  nms <- names(x)
  components <- names_before_dotted_tail(nms)
  if (is.null(components)) {
    invalid(
      "A v1 profile must have the components {.field {v1_tables}}.",
      v1_tables = v1_tables
    )
  }
  if (!identical(components, v1_tables)) {
    invalid(c(
      paste(
        "A v1 profile must have the components {.field {v1_tables}}, in this order; components",
        "after them must have names starting with a dot."
      ),
      i = "It has {.field {nms}}."
    ), v1_tables = v1_tables, nms = nms)
  }
  for (name in v1_tables) {
    part <- .subset2(x, name)
    if (!tibble::is_tibble(part)) {
      invalid(
        paste(
          "Component {.field {name}} of a v1 profile must be a tibble, not",
          "{.obj_type_friendly {part}}."
        ),
        name = name, part = part
      )
    }
  }
}

# `meta` and `sample_types`: character columns and one row, some of whose
# values are fixed. Returns the table.
check_v1_one_row_table <- function(x, table, what, fixed, invalid, note = NULL) {
  df <- .subset2(x, table)
  check_v1_table_columns(df, table, invalid)
  for (col in v1_required_columns[[table]]) {
    check_v1_column_type(df, table, col, is.character, "a character vector", invalid)
  }
  check_v1_single_row(df, table, what, invalid)
  for (col in names(fixed)) {
    expected <- fixed[[col]]
    check_v1_rows(df, table, col, .subset2(df, col) == expected,
      c("must be {.val {expected}}, not {.val {value}}.", i = note), invalid,
      expected = expected
    )
  }
  df
}

check_v1_table_columns <- function(df, table, invalid) {
  want <- v1_required_columns[[table]]
  have <- names(df)
  leading <- names_before_dotted_tail(have)
  if (is.null(leading) || !names_match_recycled(leading, want)) {
    invalid(c(
      paste(
        "Table {.field {table}} must have the columns {.field {want}}, in this order; columns",
        "after them must have names starting with a dot."
      ),
      i = "It has {.field {have}}."
    ), table = table, want = want, have = if (length(have)) have else "no columns")
  }
}

check_v1_column_type <- function(df, table, col, is_type, type_name, invalid) {
  v <- .subset2(df, col)
  if (!is_type(v)) {
    invalid(
      paste(
        "Table {.field {table}}, column {.field {col}} must be {type_name}, not",
        "{.obj_type_friendly {v}}."
      ),
      table = table, col = col, type_name = type_name, v = v
    )
  }
}

check_v1_single_row <- function(df, table, what, invalid) {
  n <- nrow(df)
  if (!identical(n, 1L)) {
    invalid(
      "Table {.field {table}} must have exactly one row ({what}), not {n}.",
      table = table, what = what, n = n
    )
  }
}

# `ok` is the row condition; `problem` (a template written here, which may
# refer to the offending `{value}` and to values in `...`) says what is wrong
# with the first row that fails it.
check_v1_rows <- function(df, table, col, ok, problem, invalid, ...) {
  row <- first_failing(ok)
  if (!is.na(row)) {
    value <- .subset2(df, col)[[row]]
    problem[[1]] <- paste0(
      "Table {.field {table}}, column {.field {col}}, row {row}: ", problem[[1]]
    )
    invalid(problem, table = table, col = col, row = row, value = value, ...)
  }
}

version_parses <- function(version) {
  tryCatch(
    {
      package_version(version)
      TRUE
    },
    error = function(e) FALSE
  )
}

# Each stack must be a tibble with exactly one column, `location_id`, of class
# "integer" (1.0.x compared the classes of all columns to "integer", which
# fails for a tibble with no column or more than one).
check_v1_stacks <- function(stacks, invalid) {
  row <- first_failing(vapply(stacks, tibble::is_tibble, logical(1)))
  if (!is.na(row)) {
    stack <- stacks[[row]]
    invalid_stack(invalid, row, "must be a tibble, not {.obj_type_friendly {stack}}.",
      stack = stack
    )
  }
  one_integer_column <- vapply(stacks, function(stack) {
    cols <- as.list(stack)
    length(cols) == 1L && identical(class(cols[[1L]]), "integer")
  }, logical(1))
  row <- first_failing(one_integer_column)
  if (!is.na(row)) {
    invalid_stack(invalid, row, "must be a tibble with one integer column {.field location_id}.")
  }
  named <- vapply(stacks, function(stack) identical(names(stack), "location_id"), logical(1))
  row <- first_failing(named)
  if (!is.na(row)) {
    have <- names(stacks[[row]])
    invalid_stack(invalid, row,
      "the column must be named {.field location_id}, not {.field {have}}.",
      have = have
    )
  }
}

check_v1_stack_references <- function(stacks, location_ids, invalid) {
  ids <- lapply(stacks, .subset2, "location_id")
  known <- unlist(ids, use.names = FALSE) %in% location_ids
  pos <- first_failing(known)
  if (!is.na(pos)) {
    row <- findInterval(pos - 1L, cumsum(lengths(ids))) + 1L
    id <- unlist(ids, use.names = FALSE)[[pos]]
    invalid_stack(invalid, row, "location {id} is not in table {.field locations}.", id = id)
  }
}

# The error for the stack of row `row` of `samples` (its `locations` cell):
# `problem`, a cli template with its values in `...`.
invalid_stack <- function(invalid, row, problem, ...) {
  invalid(
    paste("Table {.field samples}, column {.field locations}, row {row}:", problem),
    row = row, ...
  )
}

# ---------------------------------------------------------------------------
# dm view of a v1 object (as profile 1.0.x built it)

#' A profile as a dm object
#'
#' `dm_from_profile()` gives a [dm::dm()] view of a profile. For a v1 object
#' (class `profile_data`, see [profile_v1]) it builds the `dm` that profile
#' 1.0.x built: the tables `samples` (with a new column `sample_id`, the row
#' number), `locations`, `functions` and `samples_locations` (`sample_id`,
#' `location_id`: one row per frame of each stack, innermost first), with their
#' primary and foreign keys. A v2 profile is already a `dm` and is returned as
#' it is.
#'
#' @param x A profile: a v1 `profile_data` object or a v2 `dm`.
#' @return A `dm` object.
#' @export
#' @examples
#' path <- system.file("samples/rprof/1.out", package = "profile")
#' ds <- read_rprof(path, version = "1.0")
#' dm <- dm_from_profile(ds)
#' dm
#' dm::dm_examine_constraints(dm)
#'
#' # A v2 profile is a dm already
#' p <- read_rprof(path)
#' identical(dm_from_profile(p), p)
dm_from_profile <- function(x) {
  if (is_v2(x)) {
    return(x)
  }
  with_profile_errors("invalid", "Can't make a dm of {.arg x}.", dm_from_v1(x))
}

dm_from_v1 <- function(x, call = rlang::caller_env()) {
  if (!inherits(x, "profile_data")) {
    abort_argument(
      paste(
        "{.arg x} must be a v1 {.cls profile_data} object or a v2 {.cls dm}, not",
        "{.obj_type_friendly {x}}."
      ),
      x = x, call = call
    )
  }
  samples <- x$samples
  stacks <- samples$locations
  sample_id <- seq_len(nrow(samples))
  stack_ids <- lapply(stacks, .subset2, "location_id")
  samples_locations <- tibble::tibble(
    sample_id = rep(sample_id, lengths(stack_ids)),
    location_id = as.integer(unlist(stack_ids, use.names = FALSE))
  )
  samples$locations <- NULL
  samples$sample_id <- sample_id

  tables <- list(
    samples = samples,
    locations = x$locations,
    functions = x$functions,
    samples_locations = samples_locations
  )
  dm <- dm::new_dm(tables)
  dm <- dm::dm_add_pk(dm, "functions", "function_id")
  dm <- dm::dm_add_pk(dm, "locations", "location_id")
  dm <- dm::dm_add_pk(dm, "samples", "sample_id")
  dm <- dm::dm_add_fk(dm, "samples_locations", "sample_id", "samples")
  dm <- dm::dm_add_fk(dm, "samples_locations", "location_id", "locations")
  dm::dm_add_fk(dm, "locations", "function_id", "functions")
}
