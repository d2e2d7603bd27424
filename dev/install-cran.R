# Install CRAN packages that Debian does not ship (or ships too old), building from
# source through CRAN. Only packages whose installed version does not satisfy what is
# required get installed, so a machine that already has them does no work.
args <- commandArgs(trailingOnly = TRUE)
wanted <- if (length(args)) args else "dm"
ap <- available.packages()
installed_version <- function(pkg) {
  v <- tryCatch(as.character(utils::packageVersion(pkg)), error = function(e) NA_character_)
  if (is.na(v)) NULL else package_version(v)
}
base_pkgs <- rownames(installed.packages(priority = "base"))
# Walk the dependency graph, collecting (package, minimum version) requirements.
requirements <- list()
queue <- wanted
seen <- character()
while (length(queue)) {
  pkg <- queue[[1]]
  queue <- queue[-1]
  if (pkg %in% seen || pkg %in% base_pkgs || pkg == "R") next
  seen <- c(seen, pkg)
  if (!pkg %in% rownames(ap)) next
  fields <- ap[pkg, c("Depends", "Imports", "LinkingTo")]
  deps <- unlist(strsplit(paste(stats::na.omit(fields), collapse = ","), ","))
  deps <- trimws(gsub("\n", " ", deps))
  deps <- deps[nzchar(deps)]
  for (d in deps) {
    name <- trimws(sub("\\(.*", "", d))
    if (name == "R" || name %in% base_pkgs) next
    min <- if (grepl(">=", d)) trimws(sub(".*>=\\s*([^)]+)\\).*", "\\1", d)) else "0.0"
    old <- requirements[[name]]
    if (is.null(old) || package_version(min) > package_version(old)) requirements[[name]] <- min
    queue <- c(queue, name)
  }
}
for (w in wanted) if (is.null(requirements[[w]])) requirements[[w]] <- "0.0"
todo <- character()
for (name in names(requirements)) {
  have <- installed_version(name)
  if (is.null(have) || have < package_version(requirements[[name]])) todo <- c(todo, name)
}
if (length(todo)) {
  message("Installing from CRAN: ", paste(todo, collapse = ", "))
  install.packages(todo, Ncpus = 2L, quiet = TRUE)
  # An upgraded package may raise the requirements of another: run until stable.
  still <- todo[vapply(todo, function(p) is.null(installed_version(p)), logical(1))]
  if (length(still)) stop("could not install: ", paste(still, collapse = ", "))
} else {
  message("CRAN packages already satisfied: ", paste(wanted, collapse = ", "))
}
