#' Check that an object is a valid profile
#'
#' `validate_profile()` checks a profile against the rules of its format version,
#' read from its `meta` table: v1 objects (class `profile_data`, version "1.0")
#' exactly as profile 1.0.x did, v2 objects (a [dm::dm()], version "2.0") against
#' every rule described in [profile_v2].
#'
#' @param x A profile: a v2 `dm` or a v1 `profile_data` object.
#' @return `x`, invisibly, when it is valid. Otherwise an error of class
#'   `profile_error_invalid` (see [profile_error]) whose message names the table,
#'   the column and the first offending row.
#' @export
#' @examples
#' x <- read_rprof(system.file("samples/rprof/1.out", package = "profile"))
#' validate_profile(x)
#'
#' bad <- dm::dm_zoom_to(x, sample_locations)
#' bad <- dm::dm_update_zoomed(dplyr::mutate(bad, depth = depth + 1L))
#' try(validate_profile(bad))
validate_profile <- function(x) {
  with_profile_errors("invalid", "Can't validate {.arg x}.", {
    # A profile_data object is v1 whatever its meta says: profile 1.0.x accepted
    # any version number there.
    if (is_db_profile(x)) {
      validate_db(x)
    } else if (is_v2(x)) {
      validate_v2(x)
    } else if (inherits(x, "profile_data")) {
      validate_v1(x)
    } else if (identical(profile_version(x), "2.0")) {
      validate_v2(x)
    } else {
      validate_v1(x)
    }
  })
  invisible(x)
}

# The version a profile declares in its meta table, or NULL if it has none.
profile_version <- function(x) {
  meta <- if (is_v2(x)) {
    if ("meta" %in% names(x)) x[["meta"]] else NULL
  } else if (is.list(x)) {
    x[["meta"]]
  }
  if (!is.data.frame(meta) || !all(c("key", "value") %in% names(meta))) {
    return(NULL)
  }
  v <- meta$value[!is.na(meta$key) & meta$key == "version"]
  if (length(v) == 1 && !is.na(v)) as.character(v) else NULL
}
