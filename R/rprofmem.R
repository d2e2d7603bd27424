#' Read and write allocation profiles of `Rprofmem()`
#'
#' @description
#' `read_rprofmem()` reads a file written by R's allocation profiler,
#' [utils::Rprofmem()], plain or gzip-compressed, into a v2 profile (see
#' [profile_v2]) whose samples are allocations. `write_rprofmem()` writes the
#' allocation samples of a profile back in that format.
#'
#' @details
#' `Rprofmem()` writes one line per allocation: its size in bytes and the call
#' stack, innermost frame first (`3736 :"c" "f" "g"`), or `new page:` and the
#' stack for a new page of small vectors. With a `threshold`, only vectors
#' larger than it are written (new pages always are). Frames are function
#' names only (R records no file or line), `<Anonymous>` for a function called
#' by an expression that is no name; an allocation at top level has no frames.
#'
#' # Reading
#'
#' Each line becomes one sample (in the order of the file) with two values,
#' named as in Go's heap profiles so that `go tool pprof` reads the result of
#' [write_pprof()] as a user expects: `alloc_space` (unit `bytes`, the size)
#' and `alloc_objects` (unit `count`, 1). The default sample type of the
#' source is `alloc_space`. A `new page:` line is a sample of one object and
#' 0 bytes (R does not say how large a page is), marked by the sample label
#' `what` = `"new page"` (the column and value of `profmem::readRprofmem()`;
#' a label travels to pprof, where `go tool pprof -tagignore=what=new` leaves
#' them out). Each distinct frame name is a function (in no file, `start_line`
#' 0) with one location (line 0). The file is one source, of `source_type`
#' `"rprofmem"`: runs appended to a file (`Rprofmem(append = TRUE)`) leave no
#' mark in it and are read as one. Blank lines are passed over, and a line
#' that holds several records (`40 :new page:"f"`, as `profmem` splits them)
#' gives one sample per record. Names are kept verbatim, invalid UTF-8 as `<xx>`.
#'
#' A line that starts with neither a size nor `new page`, a frame that is not
#' in double quotes or whose quote is not closed (a line cut off), a size over
#' 2^64 - 1 bytes and a NUL byte are refused with an error of class
#' `profile_error_format` naming the line; a stack of more than 1 000 000
#' frames with `profile_error_limit`; so is a file whose read needs more memory
#' than the option `profile.max_memory` allows (see [profile_error]), compressed
#' data included, which are refused while they are inflated. v1 objects hold
#' one sample type only: `version = "1.0"` is refused with
#' `profile_error_unsupported`.
#'
#' # Writing
#'
#' Each sample with an `alloc_space` or `alloc_objects` value is written, in
#' the order of `samples`, as `alloc_objects` lines (one where it has no
#' count) whose sizes add up to its `alloc_space`, with the names of its
#' frames; samples labelled `what` = `"new page"` as `new page:` lines. Other
#' samples (the time samples of a [profile_record()] with `allocations = TRUE`)
#' are left out; a profile without these sample types is refused. A profile
#' read by `read_rprofmem()` is written back line for line as R wrote it. The
#' file is written to a temporary file next to `path` and renamed when
#' complete.
#'
#' @inheritParams read_rprof
#' @param version `"2.0"`, the only version that holds allocations.
#' @param x A v2 profile (or a v1 object, converted).
#' @return `read_rprofmem()`: a v2 profile (a `dm`). `write_rprofmem()`: `x`,
#'   invisibly.
#' @seealso [profile_record()] with `allocations = TRUE` records allocations
#'   beside the time profile; [profile_summary()] with `type = "alloc_space"`.
#' @export
#' @examples
#' path <- tempfile(fileext = ".out")
#' if (capabilities("profmem")) {
#'   utils::Rprofmem(path, threshold = 1000)
#'   x <- lapply(1:20, function(i) numeric(1000 * i))
#'   utils::Rprofmem(NULL)
#'   p <- read_rprofmem(path)
#'   print(profile_summary(p, type = "alloc_space"))
#'
#'   out <- tempfile(fileext = ".out")
#'   write_rprofmem(p, out)
#'   identical(readLines(out), readLines(path))
#' }
read_rprofmem <- function(path, ..., version = "2.0", source_uri = path,
                          max_size = default_max_size()) {
  message <- "Can't read the Rprofmem file {.file {path}}."
  with_profile_errors("internal", message, path = path, {
    args <- check_read_args(path, ...,
      version = version, source_uri = source_uri, max_size = max_size,
      source_text = FALSE
    )
    if (identical(args$version, "1.0")) {
      abort_profile("unsupported", c(
        "Can't read an Rprofmem file as a v1 object.",
        i = paste(
          "v1 objects hold one sample type; an allocation profile has two.",
          "Use {.code version = \"2.0\"}."
        )
      ))
    }
    bundle <- rust_value(
      ffi_rprofmem_read(
        native_path(path), args$source_uri, args$max_size, args$max_memory,
        compact_columns_option()
      ),
      message,
      path = path
    )
    dm_from_bundle(bundle)
  })
}

#' @rdname read_rprofmem
#' @export
write_rprofmem <- function(x, path) {
  message <- "Can't write {.arg x} as the Rprofmem file {.file {path}}."
  with_profile_errors("invalid", message, path = path, {
    path <- check_file_path(path)
    tables <- if (inherits(x, "profile_data")) {
      validate_v1(x)
      v2_tables_from_v1(x, repeat_rows = FALSE)
    } else {
      check_v2_tables(local_profile(x))
    }
    rust_value(
      ffi_rprofmem_write(bundle_from_tables(tables), native_path(path)),
      "Can't write the Rprofmem file {.file {path}}.",
      path = path
    )
  })
  invisible(x)
}
