# v1 (profile_data) support: validation as in profile 1.0.x, conversion to and
# from v2. (Placeholder: filled in by the v1 work.)

validate_v1 <- function(x, call = rlang::caller_env()) {
  if (!inherits(x, "profile_data")) {
    abort_profile("invalid", "Not a profile: expected a v2 {.cls dm} or a v1 {.cls profile_data}.", call = call)
  }
  invisible(x)
}
