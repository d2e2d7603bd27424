# A real v1 object: the v1 reading of an Rprof file (with its `.rprof`
# component and the dotted `.file_id` column of `functions`, as 1.0.x has them).
real_v1 <- function(file = "1.out") {
  read_rprof(sample_path("rprof", file), version = "1.0")
}

# The v1 tables without dotted components and dotted columns.
strip_dotted <- function(x) {
  x <- unclass(x)[!grepl("^[.]", names(x))]
  lapply(x, function(t) t[!grepl("^[.]", names(t))])
}

# The stack lines of an Rprof file: every line but headers and #File lines.
rprof_stack_lines <- function(path) {
  lines <- readLines(path)
  lines[!grepl("^#File ", lines) & !grepl("sample\\.interval=", lines)]
}

# Drops dotted components only, as 1.0.x's tests did.
strip_dots <- function(x) {
  x[grep("^[.]", names(x))] <- NULL
  x
}

# Each sample's frames as "system_name\rfilename\rline" strings, innermost first.
v1_frames <- function(x) {
  loc <- x$locations
  fun <- x$functions[match(loc$function_id, x$functions$function_id), ]
  desc <- paste(fun$system_name, fun$filename, loc$line, sep = "\r")
  lapply(unname(x$samples$locations), function(l) desc[match(l$location_id, loc$location_id)])
}
