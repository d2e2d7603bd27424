# Where the time goes: the phases of read_rprof() on the 30k-sample recording
# and of validate_profile() on the 1e6-sample file of bench/scaling.R (run that
# first). Medians of bench::mark(), ms. From the package root:
#
#   R_LIBS=.rlib Rscript bench/where-time-goes.R
#
# "keys, one dm_add_pk()/dm_add_fk() per key" is how the keyed dm was built
# before the template (it still builds the template once per table layout).

suppressPackageStartupMessages(library(profile))
ms <- function(...) {
  m <- bench::mark(..., min_time = 1, min_iterations = 3, check = FALSE, filter_gc = FALSE)
  setNames(round(as.numeric(m$median) * 1000, 2), names(list(...)))
}

f <- file.path("bench", "data", "rprof-30k.out")
max_size <- 4 * 1024^3
max_memory <- profile:::default_max_memory()
parse <- function() {
  input <- profile:::rprof_input(f, f, max_size, max_memory)
  profile:::rust_value(profile:::ffi_rprof_read(input, f, max_size, max_memory, FALSE, TRUE, TRUE))
}
bundle <- parse()$bundle
tables <- profile:::decode_bundle(bundle)
cat("read_rprof() of", f, "\n")
print(ms(
  `readLines() (floor)` = readLines(f),
  `read_rprof() in all` = read_rprof(f),
  `Rust: read, parse, columns to R` = parse(),
  `decode the bundle into tibbles` = profile:::decode_bundle(bundle),
  `keyed dm from the template` = profile:::dm_from_v2_tables(tables),
  `keys, one dm_add_pk()/dm_add_fk() per key` = profile:::keyed_dm(tables)
))

big <- file.path("bench", "data", "rprof-scale-1000000.out")
if (file.exists(big)) {
  x <- read_rprof(big)
  tabs <- profile:::check_v2_tables(x)
  b <- profile:::bundle_from_tables(tabs)
  cat("\nvalidate_profile() of", big, "\n")
  print(ms(
    `validate_profile() in all` = validate_profile(x),
    `check_v2_tables()` = profile:::check_v2_tables(x),
    `check_v2_keys()` = profile:::check_v2_keys(x, tabs, call = NULL),
    `bundle_from_tables()` = profile:::bundle_from_tables(tabs),
    `Rust: convert + validate` = profile:::ffi_profile_validate_v2(b)
  ))
}
