# The call graph of the R files: which file of R/ uses a function or value
# defined at the top level of another (dev/ARCHITECTURE.md, "R files and
# their tests"). The files form layers: none uses a file that uses it,
# directly or round a longer circle.
#
#   Rscript dev/call-graph.R           # fails on files that use each other
#   Rscript dev/call-graph.R --edges   # also prints the files each file uses
#
# Run it from the package root (dev/house-rules.sh does). It names every group
# of files that use one another (a strongly connected component of the graph:
# a pair, or a longer circle) with each use inside the group, the function on
# both ends; and a name defined at the top level of two files (which one R
# keeps depends on the collation order); and a file that uses one listed
# after it in the table "R files and their tests" of dev/ARCHITECTURE.md,
# which lists them lowest first. codetools (shipped with R) finds the
# names each function uses, as R CMD check does; a name used only inside a
# string (do.call("f"), get("f")) is not seen.
args <- commandArgs(trailingOnly = TRUE)
if (!dir.exists("R")) {
  stop("run dev/call-graph.R from the package root")
}

# Every top-level expression of the files: the name it defines (NA for other
# expressions), its file and the names it uses (for a function, its global
# names as codetools finds them; for anything else, every name in it).
definitions <- function(files) {
  rows <- lapply(files, function(file) {
    lapply(parse(file, keep.source = FALSE), function(e) {
      is_assignment <- is.call(e) && length(e) == 3L && is.name(e[[2L]]) &&
        (identical(e[[1L]], as.name("<-")) || identical(e[[1L]], as.name("=")))
      value <- if (is_assignment) e[[3L]] else e
      is_function <- is.call(value) && identical(value[[1L]], as.name("function"))
      uses <- if (is_function) codetools::findGlobals(eval(value, baseenv())) else all.names(value)
      list(
        name = if (is_assignment) as.character(e[[2L]]) else NA_character_,
        file = basename(file), uses = unique(uses)
      )
    })
  })
  unlist(rows, recursive = FALSE)
}

# The uses of names defined in another file: a data frame of `from` (file),
# `from_name` (the definition that uses), `to` (file) and `to_name`.
uses_between_files <- function(defs, home) {
  rows <- lapply(defs, function(d) {
    used <- intersect(d$uses, names(home))
    to <- unname(home[used])
    keep <- to != d$file
    if (!any(keep)) {
      return(NULL)
    }
    from_name <- if (is.na(d$name)) "(top level)" else d$name
    data.frame(from = d$file, from_name = from_name, to = to[keep], to_name = used[keep])
  })
  do.call(rbind, rows)
}

# The groups of files that reach one another (each of two files or more).
circles <- function(edge) {
  reach <- edge
  repeat {
    wider <- reach | (reach %*% reach > 0)
    if (identical(wider, reach)) break
    reach <- wider
  }
  mutual <- reach & t(reach)
  groups <- unique(lapply(rownames(edge), function(f) {
    sort(unique(c(f, colnames(edge)[mutual[f, ]])))
  }))
  groups[lengths(groups) > 1L]
}

files <- sort(list.files("R", "[.]R$", full.names = TRUE))
file_names <- basename(files)
defs <- definitions(files)
def_name <- vapply(defs, `[[`, "", "name")
def_file <- vapply(defs, `[[`, "", "file")
named <- !is.na(def_name)

problems <- character()
for (name in unique(def_name[named][duplicated(def_name[named])])) {
  where <- unique(def_file[named & def_name == name])
  if (length(where) > 1L) {
    problems <- c(problems, sprintf(
      "%s is defined at the top level of %s", name, paste(where, collapse = " and ")
    ))
  }
}

home <- tapply(def_file[named], def_name[named], `[`, 1L)
uses <- uses_between_files(defs, home)
edge <- matrix(FALSE, length(file_names), length(file_names),
  dimnames = list(file_names, file_names)
)
edge[cbind(uses$from, uses$to)] <- TRUE

# The uses inside a group of files, direction by direction (file to file),
# the directions with fewest uses first (the likely ones to move), each with
# at most five uses shown.
describe_uses <- function(inside) {
  direction <- paste(inside$from, "->", inside$to)
  counts <- table(direction)
  lines <- unlist(lapply(names(sort(counts)), function(d) {
    mine <- inside[direction == d, , drop = FALSE]
    mine <- mine[order(mine$from_name, mine$to_name), , drop = FALSE]
    shown <- utils::head(mine, 5L)
    c(
      sprintf("    %s: %s uses %s", d, shown$from_name, shown$to_name),
      if (nrow(mine) > 5L) sprintf("    %s: and %d uses more", d, nrow(mine) - 5L)
    )
  }))
  paste(lines, collapse = "\n")
}

for (group in circles(edge)) {
  inside <- uses[uses$from %in% group & uses$to %in% group, , drop = FALSE]
  what <- if (length(group) == 2L) {
    sprintf("%s and %s use each other", group[[1L]], group[[2L]])
  } else {
    sprintf(
      "%d files use one another round a circle: %s", length(group), paste(group, collapse = ", ")
    )
  }
  problems <- c(problems, paste0(what, ":\n", describe_uses(inside)))
}

# The table "R files and their tests" of dev/ARCHITECTURE.md lists the files
# lowest first: each uses only files listed before it.
architecture_order <- function(path = "dev/ARCHITECTURE.md") {
  lines <- readLines(path, warn = FALSE)
  start <- grep("^#+ R files and their tests", lines)
  if (length(start) != 1L) {
    return(character())
  }
  after <- lines[-seq_len(start)]
  end <- grep("^#", after)
  section <- if (length(end)) after[seq_len(end[[1L]] - 1L)] else after
  rows <- grep("^\\| `[^`]+\\.R` \\|", section, value = TRUE)
  sub("^\\| `([^`]+)`.*$", "\\1", rows)
}

order <- architecture_order()
if (length(order)) {
  listed <- uses[uses$from %in% order & uses$to %in% order, , drop = FALSE]
  later <- listed[match(listed$to, order) > match(listed$from, order), , drop = FALSE]
  for (pair in unique(paste(later$from, later$to))) {
    mine <- later[paste(later$from, later$to) == pair, , drop = FALSE]
    problems <- c(problems, sprintf(
      "%s uses %s, listed after it in the table of dev/ARCHITECTURE.md (%s uses %s)",
      mine$from[[1L]], mine$to[[1L]], mine$from_name[[1L]], mine$to_name[[1L]]
    ))
  }
}

if ("--edges" %in% args) {
  for (f in file_names) {
    to <- file_names[edge[f, ]]
    cat(f, " -> ", if (length(to)) paste(to, collapse = ", ") else "(none)", "\n", sep = "")
  }
}

if (length(problems)) {
  message(paste0("call graph: ", problems, collapse = "\n"))
  message(
    "call graph: ", length(problems), " problem(s). Move functions so that no two files ",
    "use each other: what both need goes into a file below them."
  )
  quit(status = 1L)
}
cat(sprintf(
  paste(
    "call graph: %d R files, %d uses between files, no two files that use each other;",
    "each uses only files before it in the table of dev/ARCHITECTURE.md\n"
  ),
  length(file_names), sum(edge)
))
