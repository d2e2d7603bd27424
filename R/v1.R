# v1 (profile_data) support: validation as in profile 1.0.x, conversion to and
# from v2. (Placeholder: filled in by the v1 work.)

validate_v1 <- function(x, call = rlang::caller_env()) {
  if (!inherits(x, "profile_data")) {
    abort_profile("invalid", "Not a profile: expected a v2 {.cls dm} or a v1 {.cls profile_data}.", call = call)
  }
  invisible(x)
}

# The v1 `samples` table from stacks in long form: `sample_id` and `location_id`
# (rows ordered by sample, innermost frame first), for samples `ids` in this order,
# each with `value`. A sample without frames gets an empty locations tibble.
v1_samples <- function(ids, value, stack_sample_id, stack_location_id) {
  # Profiles have 10^5 and more samples, so this avoids what is slow per call:
  # factor() (the grouping factor is made directly) and tibble::new_tibble()
  # (the tibbles are made by setting their attributes).
  group <- structure(match(stack_sample_id, ids), levels = as.character(seq_along(ids)), class = "factor")
  groups <- split(stack_location_id, group)
  tbl_class <- c("tbl_df", "tbl", "data.frame")
  locations <- lapply(unname(groups), function(l) {
    n <- length(l)
    `attributes<-`(list(l), list(
      names = "location_id", class = tbl_class,
      row.names = if (n > 0L) c(NA_integer_, -n) else integer()
    ))
  })
  tibble::tibble(value = value, locations = locations)
}
