# Helpers of the OTLP tests: where the shared real files are, and profiles
# compared "ids aside" (every id replaced by what it refers to).

# The folder of the project's shared OTLP fixtures (`../shared/otlp` from a
# clone, `../../shared/otlp` from a worktree, or PROFILE_OTLP_FILES), or NULL.
otlp_shared_dir <- function() {
  env <- Sys.getenv("PROFILE_OTLP_FILES")
  candidates <- c(
    if (nzchar(env)) env,
    file.path(testthat::test_path(), c(
      "../../../shared/otlp", "../../../../shared/otlp",
      "../../../../../shared/otlp"
    ))
  )
  found <- candidates[dir.exists(candidates)]
  if (length(found)) normalizePath(found[[1]]) else NULL
}

# The path of a shared OTLP file, or a skip (CI: an error).
otlp_shared_file <- function(file) {
  dir <- otlp_shared_dir()
  if (is.null(dir) || !file.exists(file.path(dir, file))) {
    otlp_skip(paste("the shared OTLP file", file, "is absent (set PROFILE_OTLP_FILES)"))
  }
  file.path(dir, file)
}

# The package's sample files, named.
otlp_sample_files <- function() {
  rprof <- c(
    "1.out", "memory.out", "line.out", "gc.out", "append.out", "all.out", "toplevel.out",
    "incomplete.out"
  )
  pprof <- c("cpu.pb.gz", "heap.pb.gz", "goroutine.pb.gz", "mutex.pb.gz", "block.pb.gz")
  second <- c("cpu.pb.gz", "heap.pb.gz")
  c(
    stats::setNames(
      system.file("samples", "rprof", rprof, package = "profile"),
      paste0("rprof/", rprof)
    ),
    stats::setNames(
      system.file("samples", "pprof", pprof, package = "profile"),
      paste0("pprof/", pprof)
    ),
    stats::setNames(
      system.file("samples", "pprof-second-run", second, package = "profile"),
      paste0("pprof-second-run/", second)
    ),
    "proto/1.out.prof.pb.gz" = system.file(
      "samples", "proto", "1.out.prof.pb.gz",
      package = "profile"
    )
  )
}

otlp_read_sample <- function(path) {
  if (grepl("/rprof/", path, fixed = TRUE)) suppressWarnings(read_rprof(path)) else read_pprof(path)
}

# A text per row of `df` (its columns pasted, NA as "NA").
row_text <- function(df) {
  if (!ncol(df)) {
    return(rep("", nrow(df)))
  }
  do.call(paste, c(lapply(df, function(x) {
    if (is.double(x)) format(x, digits = 17) else as.character(x)
  }), sep = "\x1f"))
}

# The columns of a table but its ids (and `extra`), those of `keep` only if given.
without_ids <- function(df, ids) {
  df[setdiff(names(df), ids)]
}

# The locations of tables `t` as texts, by location id: each row's function
# and mapping written out, followed by the rows it is inlined into.
location_texts <- function(t) {
  functions <- row_text(without_ids(t$functions, "function_id"))
  names(functions) <- t$functions$function_id
  mappings <- if (!is.null(t$mappings)) {
    m <- row_text(without_ids(t$mappings, c("mapping_id", "source_id")))
    stats::setNames(m, t$mappings$mapping_id)
  }
  loc <- t$locations
  loc_text <- paste(
    functions[as.character(loc$function_id)],
    row_text(without_ids(loc, c("location_id", "function_id", "mapping_id", "inlined_into"))),
    if (!is.null(loc$mapping_id)) mappings[as.character(loc$mapping_id)],
    sep = "\x1e"
  )
  names(loc_text) <- loc$location_id
  if (is.null(loc$inlined_into)) {
    return(loc_text)
  }
  chain <- loc_text
  target <- as.character(loc$inlined_into)
  for (i in seq_len(nrow(loc))) {
    k <- target[[i]]
    seen <- 0L
    while (!is.na(k) && seen < nrow(loc)) {
      chain[[i]] <- paste(chain[[i]], loc_text[[k]], sep = "\x1d")
      k <- target[match(k, loc$location_id)]
      seen <- seen + 1L
    }
  }
  chain
}

# The columns that only OTLP fills.
otlp_only_columns <- c(
  "scope_id", "trace_id", "span_id", "time_origin_nanos", "profile_id",
  "dropped_attributes_count", "original_payload_format", "original_payload",
  "timestamps_only", "kind"
)

# Each sample of tables `t` as one text: source position, its columns, its
# stack (location texts), values and labels.
sample_texts <- function(t, loc_text, drop) {
  levels <- seq_len(nrow(t$samples))
  sample_pos <- function(ids) factor(match(ids, t$samples$sample_id), levels = levels)
  per_sample <- function(ids, text) {
    vapply(split(text, sample_pos(ids)), function(x) paste(sort(x), collapse = "\x1c"), "")
  }
  sl <- t$sample_locations
  sl <- sl[order(sl$sample_id, sl$depth), ]
  stacks <- split(loc_text[as.character(sl$location_id)], sample_pos(sl$sample_id))
  stacks <- vapply(stacks, paste, "", collapse = "\x1c")
  sv <- t$sample_values
  values <- per_sample(sv$sample_id, row_text(without_ids(sv, "sample_id")))
  lab <- t$sample_labels
  labels <- if (!is.null(lab)) per_sample(lab$sample_id, row_text(without_ids(lab, "sample_id")))
  source_pos <- match(t$samples$source_id, t$sources$source_id)
  columns <- row_text(drop(without_ids(t$samples, c("sample_id", "source_id"))))
  paste(source_pos, columns, stacks, values, if (!is.null(labels)) labels, sep = "\x1b")
}

# A profile "ids aside": every table as a list of row texts in which each id is
# replaced by the text of the row it refers to; per-sample tables in sample
# order. `otlp_columns = FALSE` leaves out the columns and tables that only
# OTLP fills (`scope_id`, `resources`, ...), for comparing a profile of
# another format with itself read back from OTLP; `source_uri = FALSE` leaves
# out where the sources were read from.
profile_canonical <- function(x, otlp_columns = TRUE, source_uri = TRUE) {
  t <- lapply(dm::dm_get_tables(x, keyed = FALSE), as.data.frame)
  drop <- function(df) if (otlp_columns) df else df[setdiff(names(df), otlp_only_columns)]
  if (!source_uri) t$sources$source_uri <- NULL
  loc_text <- location_texts(t)
  per_source <- function(df) {
    if (is.null(df)) {
      return(NULL)
    }
    source <- match(df$source_id, t$sources$source_id)
    sort(paste(source, row_text(drop(without_ids(df, "source_id")))))
  }
  out <- list(
    meta = sort(row_text(t$meta)),
    sources = row_text(drop(without_ids(t$sources, "source_id"))),
    samples = sample_texts(t, loc_text, drop),
    functions = sort(row_text(without_ids(t$functions, "function_id"))),
    locations = sort(unname(loc_text)),
    mappings = if (!is.null(t$mappings)) {
      sort(row_text(without_ids(t$mappings, c("mapping_id", "source_id"))))
    },
    sample_types = per_source(t$sample_types),
    # in order
    source_comments = if (!is.null(t$source_comments)) {
      paste(match(t$source_comments$source_id, t$sources$source_id), t$source_comments$comment)
    }
  )
  if (otlp_columns && !is.null(t$resources)) {
    out$source_attributes <- per_source(t$source_attributes)
    out$resources <- row_text(without_ids(t$resources, "resource_id"))
    out$scopes <- row_text(without_ids(t$scopes, c("scope_id", "resource_id")))
  }
  out
}

# `source_uri = FALSE` leaves out where the sources were read from (a file
# read from OTLP is a source of the file read).
expect_same_profile <- function(object, expected, otlp_columns = TRUE, source_uri = TRUE,
                                label = NULL) {
  a <- profile_canonical(object, otlp_columns, source_uri)
  b <- profile_canonical(expected, otlp_columns, source_uri)
  for (name in names(b)) {
    testthat::expect_identical(a[[name]], b[[name]], label = paste(label, name))
  }
}
