# The layout of the Rust code kept by machine (dev/ARCHITECTURE.md, "Core
# modules" and "Binding modules"): dev/house-rules.sh runs this.
#
#   Rscript dev/rust-layers.R            # check; fail naming each offending line
#   Rscript dev/rust-layers.R --graph    # also print the modules' imports
#
# It reads the paths a file names (`use` declarations and paths in code that
# start with `crate::`, `super::` or `self::`; comments and strings left out)
# and keeps these rules:
#
# - Layers. The core's top-level modules are layers, each using only those
#   below it (`core_layers`, lowest first); the test support (`testing`,
#   `props`) may use any.
# - Formats never import each other: the modules of `formats/` use none of
#   their siblings (what two formats share lives in a lower layer).
# - No import cycle between the modules of one folder, at any depth, in both
#   crates: a module may use its ancestors and its descendants, and the
#   siblings it uses (or those of its ancestors) must not use it back.
# - One module-file style: `foo.rs` beside a folder `foo/`, never `mod.rs`.
# - Tests live in files of their own (`tests.rs`, or the files of a `tests/`
#   folder), never in an inline `mod tests { ... }`. Test files are above
#   every layer: what they use is not checked.
args <- commandArgs(trailingOnly = TRUE)
show_graph <- "--graph" %in% args

core_layers <- c("error", "resources", "io", "model", "ops", "formats")
test_support <- c("testing", "props")
independent_folders <- "formats"

crates <- list(
  core = "src/rust/core/src",
  binding = "src/rust/src"
)

# The text of a file with its comments, strings and character literals
# blanked (newlines kept, so that offsets still give line numbers).
blank_comments_and_strings <- function(text) {
  pattern <- paste0(
    "r(#*)\"[\\s\\S]*?\"\\1", # raw strings
    "|//[^\\n]*", # line and doc comments
    "|/\\*[\\s\\S]*?\\*/", # block comments
    "|b?\"(?:\\\\[\\s\\S]|[^\"\\\\])*\"", # strings
    "|b?'(?:\\\\u\\{[0-9a-fA-F]+\\}|\\\\.|[^\\\\'\\n])'" # characters
  )
  m <- gregexpr(pattern, text, perl = TRUE)
  regmatches(text, m) <- list(gsub("[^\n]", " ", regmatches(text, m)[[1]]))
  text
}

# The paths of a `use` tree ("crate::a::{b, c::{d, e}}"), each a character
# vector of segments.
expand_use_tree <- function(tree, prefix = character()) {
  tree <- gsub("\\s+", "", tree)
  brace <- regexpr("\\{", tree)
  if (brace < 0) {
    tree <- sub("as\\w+$", "", sub("(\\w)as(\\w+)$", "\\1", tree))
    return(list(c(prefix, strsplit(tree, "::", fixed = TRUE)[[1]])))
  }
  head <- sub("::$", "", substr(tree, 1, brace - 1))
  inner <- substr(tree, brace + 1, nchar(tree) - 1)
  prefix <- c(prefix, if (nzchar(head)) strsplit(head, "::", fixed = TRUE)[[1]])
  chars <- strsplit(inner, "")[[1]]
  depth <- cumsum(chars == "{") - cumsum(chars == "}")
  cuts <- which(chars == "," & depth == 0)
  starts <- c(1, cuts + 1)
  ends <- c(cuts - 1, length(chars))
  parts <- substring(inner, starts, ends)
  unlist(lapply(parts[nzchar(parts)], expand_use_tree, prefix = prefix),
    recursive = FALSE
  )
}

# The module path of a file of a crate's source folder: "a/b.rs" is a::b,
# lib.rs the root (character(0)); a mod.rs is its folder.
module_of <- function(file) {
  parts <- strsplit(sub("\\.rs$", "", file), "/", fixed = TRUE)[[1]]
  if (parts[length(parts)] %in% c("lib", "mod")) parts <- parts[-length(parts)]
  parts
}

is_test_file <- function(module) {
  "tests" %in% module || (length(module) > 0 && module[1] %in% test_support)
}

# Every path a file names that leads into the crate: one row per reference,
# with its line and the module path it resolves to.
references_of <- function(root, file) {
  text <- paste(readLines(file.path(root, file), warn = FALSE), collapse = "\n")
  text <- blank_comments_and_strings(text)
  module <- module_of(file)
  line_at <- function(offsets) {
    newlines <- gregexpr("\n", text, fixed = TRUE)[[1]]
    vapply(offsets, function(o) sum(newlines > 0 & newlines < o) + 1L, 1L)
  }
  found <- list()
  uses <- gregexpr("\\buse\\s+[^;]*;", text, perl = TRUE)[[1]]
  if (uses[1] > 0) {
    texts <- regmatches(text, list(uses))[[1]]
    lines <- line_at(uses)
    for (i in seq_along(texts)) {
      tree <- sub("^use\\s+", "", sub(";$", "", texts[i]))
      for (path in expand_use_tree(tree)) {
        found[[length(found) + 1]] <- list(line = lines[i], path = path)
      }
    }
    # Paths inside `use` declarations are read; blank them for the next step.
    regmatches(text, list(uses)) <- list(gsub("[^\n]", " ", texts))
  }
  inline <- gregexpr("\\b(crate|super|self)(\\s*::\\s*\\w+)+", text, perl = TRUE)[[1]]
  if (inline[1] > 0) {
    texts <- regmatches(text, list(inline))[[1]]
    lines <- line_at(inline)
    for (i in seq_along(texts)) {
      path <- strsplit(gsub("\\s+", "", texts[i]), "::", fixed = TRUE)[[1]]
      found[[length(found) + 1]] <- list(line = lines[i], path = path)
    }
  }
  rows <- lapply(found, function(f) {
    target <- resolve(f$path, module)
    if (is.null(target)) {
      return(NULL)
    }
    data.frame(
      file = file, line = f$line, from = paste(module, collapse = "::"),
      to = paste(target, collapse = "::"), named = paste(f$path, collapse = "::")
    )
  })
  do.call(rbind, rows)
}

# The items a path names, as a path from the crate root; NULL for a path
# outside the crate (std, other crates) or relative to the module itself
# (a child module, always allowed).
resolve <- function(path, module) {
  head <- path[1]
  if (identical(head, "crate")) {
    return(path[-1])
  }
  if (identical(head, "self")) {
    return(c(module, path[-1]))
  }
  if (!identical(head, "super")) {
    return(NULL)
  }
  base <- module
  while (length(path) > 0 && path[1] == "super") {
    base <- base[-length(base)]
    path <- path[-1]
  }
  c(base, path)
}

# The longest prefix of `target` that is a module of the crate.
module_prefix <- function(target, modules) {
  parts <- strsplit(target, "::", fixed = TRUE)[[1]]
  for (n in rev(seq_along(parts))) {
    candidate <- paste(parts[seq_len(n)], collapse = "::")
    if (candidate %in% modules) {
      return(candidate)
    }
  }
  ""
}

# The edge between siblings a reference makes: the children of the deepest
# common ancestor of `from` and `to` that hold each; NULL when one holds the
# other (a module uses its ancestors and descendants freely).
sibling_edge <- function(from, to) {
  a <- if (nzchar(from)) strsplit(from, "::", fixed = TRUE)[[1]] else character()
  b <- if (nzchar(to)) strsplit(to, "::", fixed = TRUE)[[1]] else character()
  n <- 0
  while (n < min(length(a), length(b)) && a[n + 1] == b[n + 1]) n <- n + 1
  if (n == length(a) || n == length(b)) {
    return(NULL)
  }
  parent <- paste(a[seq_len(n)], collapse = "::")
  c(parent = parent, from = a[n + 1], to = b[n + 1])
}

# Cycles of a directed graph given as a data frame of edges (from, to): each
# strongly connected component of more than one node, as its nodes.
cycles_of <- function(edges) {
  nodes <- unique(c(edges$from, edges$to))
  reach <- function(start) {
    seen <- start
    frontier <- start
    while (length(frontier) > 0) {
      nxt <- setdiff(edges$to[edges$from %in% frontier], seen)
      seen <- c(seen, nxt)
      frontier <- nxt
    }
    seen
  }
  reachable <- lapply(nodes, reach)
  names(reachable) <- nodes
  components <- list()
  done <- character()
  for (v in nodes) {
    if (v %in% done) next
    component <- Filter(function(w) v %in% reachable[[w]], reachable[[v]])
    done <- c(done, component)
    if (length(component) > 1) components[[length(components) + 1]] <- sort(component)
  }
  components
}

problems <- character()
complain <- function(...) problems <<- c(problems, paste0(...))

# The file-level conventions: no mod.rs, no inline test module.
check_conventions <- function(root, files) {
  for (f in files[basename(files) == "mod.rs"]) {
    complain(
      root, "/", f, ": a mod.rs; the module-file style is foo.rs beside foo/ ",
      "(git mv ", f, " ", dirname(f), ".rs)"
    )
  }
  for (f in files) {
    text <- blank_comments_and_strings(
      paste(readLines(file.path(root, f), warn = FALSE), collapse = "\n")
    )
    if (grepl("\\bmod\\s+tests\\s*\\{", text, perl = TRUE)) {
      complain(
        root, "/", f, ": an inline `mod tests { ... }`; tests live in ",
        "files of their own (`#[cfg(test)] mod tests;` and a tests.rs)"
      )
    }
  }
}

# The edges between siblings that a crate's library code makes (test files
# left out), each with the reference that makes it.
sibling_edges <- function(root, files) {
  modules <- vapply(files, function(f) paste(module_of(f), collapse = "::"), "")
  refs <- do.call(rbind, lapply(files, function(f) references_of(root, f)))
  refs$to <- vapply(refs$to, module_prefix, "", modules = modules)
  refs$test <- vapply(
    strsplit(refs$file, "/", fixed = TRUE),
    function(p) is_test_file(module_of(paste(p, collapse = "/"))), TRUE
  )
  edges <- do.call(rbind, lapply(seq_len(nrow(refs)), function(i) {
    e <- sibling_edge(refs$from[i], refs$to[i])
    if (is.null(e)) {
      return(NULL)
    }
    cbind(refs[i, c("file", "line", "named", "test")], as.list(e))
  }))
  list(n_refs = nrow(refs), edges = edges[!edges$test, ])
}

where <- function(root, e) sprintf("%s/%s:%d: `%s`", root, e$file, e$line, e$named)

# The core's layers, and formats that import none of their siblings.
check_layers <- function(root, edges) {
  top <- edges[edges$parent == "", ]
  rank <- function(m) ifelse(m %in% test_support, Inf, match(m, core_layers))
  unknown <- setdiff(unique(c(top$from, top$to)), c(core_layers, test_support))
  for (m in unknown) {
    complain(root, ": the top-level module `", m, "` is in no layer (core_layers)")
  }
  known <- !(top$from %in% unknown | top$to %in% unknown)
  upward <- top[known & rank(top$from) <= rank(top$to), ]
  for (i in seq_len(nrow(upward))) {
    complain(
      where(root, upward[i, ]), ": the layer `", upward$from[i],
      "` uses `", upward$to[i], "`, which is not below it"
    )
  }
  across <- edges[edges$parent %in% independent_folders, ]
  for (i in seq_len(nrow(across))) {
    complain(
      where(root, across[i, ]), ": `", across$parent[i], "::", across$from[i],
      "` uses its sibling `", across$to[i], "` (", across$parent[i],
      " never import each other)"
    )
  }
}

# No two siblings that use each other, directly or through others.
check_cycles <- function(root, edges) {
  for (parent in unique(edges$parent)) {
    group <- unique(edges[edges$parent == parent, c("from", "to")])
    for (component in cycles_of(group)) {
      inside <- edges[edges$parent == parent &
        edges$from %in% component & edges$to %in% component, ]
      # The first reference of each direction is enough to find the rest.
      inside <- inside[!duplicated(inside[, c("from", "to")]), ]
      complain(
        root, ": the modules ", paste0("`", component, "`", collapse = ", "),
        if (nzchar(parent)) paste0(" of `", parent, "`"),
        " use each other:\n", paste0("  ", where(root, inside), collapse = "\n")
      )
    }
  }
}

print_graph <- function(crate, root, edges) {
  graph <- unique(edges[, c("parent", "from", "to")])
  graph <- graph[order(graph$parent, graph$from, graph$to), ]
  cat("== ", crate, " (", root, "): who uses whom among siblings\n", sep = "")
  for (key in unique(paste(graph$parent, graph$from))) {
    rows <- graph[paste(graph$parent, graph$from) == key, ]
    parent <- if (nzchar(rows$parent[1])) paste0(rows$parent[1], "::") else ""
    cat(sprintf("  %s%s -> %s\n", parent, rows$from[1], paste(rows$to, collapse = ", ")))
  }
}

for (crate in names(crates)) {
  root <- crates[[crate]]
  files <- list.files(root, pattern = "\\.rs$", recursive = TRUE)
  check_conventions(root, files)
  found <- sibling_edges(root, files)
  if (crate == "core") check_layers(root, found$edges)
  check_cycles(root, found$edges)
  if (show_graph) print_graph(crate, root, found$edges)
  cat(sprintf(
    "rust layers: %s: %d files, %d references into the crate\n",
    crate, length(files), found$n_refs
  ))
}

if (length(problems) > 0) {
  cat(problems, sep = "\n", file = stderr())
  cat(sprintf("rust layers: %d problems\n", length(problems)), file = stderr())
  quit(status = 1)
}
cat("rust layers: every rule kept\n")
