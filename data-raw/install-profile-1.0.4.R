# Installs CRAN 'profile' 1.0.4 into a private library, apart from the
# library that holds the package being developed (both are called 'profile').
# Used only to produce reference files with the old implementation.
#
#   Rscript data-raw/install-profile-1.0.4.R
#
# The target library is $PROFILE_104_LIB (default ~/.cache/profile-1.0.4, where the tests look).
# Nothing happens when version 1.0.4 is already there.

lib <- path.expand(Sys.getenv("PROFILE_104_LIB", "~/.cache/profile-1.0.4"))
wanted <- "1.0.4"

installed_version <- function(lib) {
  desc <- file.path(lib, "profile", "DESCRIPTION")
  if (!file.exists(desc)) {
    return(NA_character_)
  }
  unname(read.dcf(desc, fields = "Version")[1, 1])
}

have <- installed_version(lib)
if (identical(have, wanted)) {
  message("profile ", wanted, " already in ", lib)
  quit(save = "no", status = 0)
}

dir.create(lib, recursive = TRUE, showWarnings = FALSE)
repos <- getOption("repos")
if (is.null(repos) || identical(unname(repos["CRAN"]), "@CRAN@")) {
  stop("No CRAN mirror is set: set options(repos = ...) first.")
}

# Dependencies (methods, rlang, tibble, vctrs, withr; RProtoBuf for
# write_pprof()) are expected in the ordinary library already.
avail <- available.packages(repos = repos, type = "source")
if ("profile" %in% rownames(avail) && avail["profile", "Version"] == wanted) {
  install.packages("profile",
    lib = lib, repos = repos, type = "source",
    dependencies = FALSE
  )
} else {
  # 1.0.4 is no longer the current release: take it from the archive.
  url <- paste0(repos["CRAN"], "/src/contrib/Archive/profile/profile_", wanted, ".tar.gz")
  install.packages(url, lib = lib, repos = NULL, type = "source")
}

have <- installed_version(lib)
if (!identical(have, wanted)) {
  stop("could not install profile ", wanted, " into ", lib)
}
message("installed profile ", have, " into ", lib)
