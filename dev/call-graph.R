# The call graph of the R files: which file of R/ uses a function or value
# defined at the top level of another (dev/ARCHITECTURE.md, "R files").
#
#   Rscript dev/call-graph.R           # fails on files that use each other
#   Rscript dev/call-graph.R --edges   # also prints every file's uses
#
# Two files that use each other, directly or around a longer circle, are one
# room with two doors: the check names every such group of files (a strongly
# connected component of the graph) and, for each of its uses, the functions
# on both ends. A name defined at the top level of two files is refused too
# (which one R keeps depends on the collation order). codetools (shipped with
# R) finds the names each function uses, as R CMD check does; a name used
# inside a string (do.call("f"), get("f")) is not seen.
args <- commandArgs(trailingOnly = TRUE)
if (!dir.exists("R")) {
  stop("run dev/call-graph.R from the package root")
}

# Every top-level definition of the files: its name, its file, and the names
# it uses (for a function, its global names as codetools finds them; for a
# value, every name in its expression).
definitions <- function(files) {
  rows <- lapply(files, function(file) {
    exprs <- parse(file, keep.source = FALSE)
    lapply(exprs, function(e) {
      is_assignment <- is.call(e) && length(e) == 3 &&
        (identical(e[[1]], as.name("<-")) || identical(e[[1]], as.name("="))) &&
        is.name(e[[2]])
      name <- if (is_assignment) as.character(e[[2]]) else NA_character_
      value <- if (is_assignment) e[[3]] else e
      is_function <- is.call(value) && identical(value[[1]], as.name("function"))
      uses <- if (is_function) {
        codetools::findGlobals(eval(value, baseenv()))
      } else {
        all.names(value)
      }
      list(name = name, file = basename(file), uses = unique(uses))
    })
  })
  unlist(rows, recursive = FALSE)
}

files <- sort(list.files("R", "[.]R$", full.names = TRUE))
defs <- definitions(files)
def_name <- vapply(defs, `[[`, "", "name")
def_file <- vapply(defs, `[[`, "", "file")

problems <- character()

named <- !is.na(def_name)
dup <- unique(def_name[named][duplicated(def_name[named])])
for (name in dup) {
  where <- unique(def_file[named & def_name == name])
  if (length(where) > 1) {
    problems <- c(problems, sprintf(
      "%s is defined at the top level of %s", name, paste(where, collapse = " and ")
    ))
  }
}

# The uses between files: one row per (from file, from function, to file,
# to name).
home <- tapply(def_file[named], def_name[named], `[`, 1)
uses <- do.call(rbind, lapply(defs, function(d) {
  used <- intersect(d$uses, names(home))
  to <- unname(home[used])
  keep <- to != d$file
  if (!any(keep)) {
    return(NULL)
  }
  data.frame(
    from = d$file, from_name = if (is.na(d$name)) "(top level)" else d$name,
    to = to[keep], to_name = used[keep]
  )
}))

file_names <- basename(files)
edge <- matrix(FALSE, length(file_names), length(file_names),
  dimnames = list(file_names, file_names)
)
edge[cbind(uses$from, uses$to)] <- TRUE

# Reachability by repeated squaring; two files are in one circle when each
# reaches the other.
reach <- edge
repeat {
  more <- reach | (reach %*% reach > 0)
  if (identical(more, reach)) break
  reach <- more
}
circular <- reach & t(reach)
seen <- character()
for (f in file_names) {
  group <- c(f, file_names[circular[f, ]])
  group <- sort(unique(group))
  if (length(group) < 2 || f %in% seen) next
  seen <- c(seen, group)
  within <- uses[uses$from %in% group & uses$to %in% group, ]
  within <- within[order(within$from, within$to, within$from_name), ]
  detail <- sprintf(
    "    %s: %s() uses %s (%s)",
    within$from, within$from_name, within$to_name, within$to
  )
  problems <- c(problems, paste0(
    "these files use each other: ", paste(group, collapse = ", "), "\n",
    paste(detail, collapse = "\n")
  ))
}

if ("--edges" %in% args) {
  for (f in file_names) {
    to <- file_names[edge[f, ]]
    cat(f, "->", if (length(to)) paste(to, collapse = ", ") else "(none)", "\n")
  }
}

if (length(problems)) {
  message(paste(problems, collapse = "\n"))
  message(
    "call graph: ", length(problems), " problem(s); move the functions so that ",
    "each file uses only files that do not use it (dev/ARCHITECTURE.md, \"R files\")"
  )
  quit(status = 1)
}
cat("call graph: ", length(file_names), " R files, no two that use each other\n", sep = "")
