#' @description
#' Reads R's `Rprof()` files ([read_rprof()]) and pprof files ([read_pprof()])
#' into a relational data model, a keyed [dm::dm()] object described in
#' [profile_v2], and writes any profile to either format ([write_rprof()],
#' [write_pprof()]). [profile_summary()] and [profile_flamegraph()] look at a
#' profile, the verbs of [profile_verbs] ([profile_focus()], [profile_hide()],
#' ...) manipulate one, [profile_view()] shows one in the browser,
#' [write_speedscope()] writes one for speedscope, [combine_profiles()] joins
#' several, and [validate_profile()] checks one. The v1 objects of profile 1.0.x
#' ([profile_v1]) are still available.
#'
#' See `vignette("profile-data-model", package = "profile")` for the data model,
#' queries with dplyr, and migrating from profile 1.0.x.
#'
#' @keywords internal
"_PACKAGE"

# A profile is a dm: dm's methods (`$`, `[[`, print()) must be registered
# wherever a profile exists, also one read with readRDS() before any function
# of this package ran. Importing from dm loads its namespace with this one's.
#' @importFrom dm dm_get_tables
NULL

## usethis namespace: start
#' @importFrom rlang .data
## usethis namespace: end
NULL
