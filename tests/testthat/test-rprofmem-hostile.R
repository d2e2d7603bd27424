# read_rprofmem() on hostile files: cut lines, garbage, sizes that overflow,
# deep stacks, a gzip bomb. Each gives a classed error that names the line,
# or a valid profile; never an abort, and memory stays bounded.

write_text <- function(lines, fileext = ".out") {
  path <- withr::local_tempfile(fileext = fileext, .local_envir = parent.frame())
  writeBin(charToRaw(paste0(paste(lines, collapse = "\n"), "\n")), path)
  path
}

test_that("bad lines are format errors that name the line", {
  cut <- write_text(c("8048 :\"f\" \"g\" ", "new page:\"f\" ", "4000 :\"g\" \"f"))
  expect_profile_error(read_rprofmem(cut), "format", "line 3", "closing quote")
  words <- write_text(c("8048 :\"f\" ", "", "hello there"))
  expect_profile_error(read_rprofmem(words), "format", "line 3")
  unquoted <- write_text(c("8048 :\"f\" ", "96 :f g"))
  expect_profile_error(read_rprofmem(unquoted), "format", "line 2")
  not_rprofmem <- write_text(c("sample.interval=20000", "\"f\" \"g\" "))
  expect_profile_error(read_rprofmem(not_rprofmem), "format", "Rprofmem")
})

test_that("a size over 2^64 - 1 is refused; the largest one is read exactly as R wrote it", {
  over <- write_text(c("8048 :\"f\" ", "18446744073709551616 :\"f\" "))
  expect_profile_error(read_rprofmem(over), "format", "line 2", "2^64")
  huge <- write_text(c("99999999999999999999999999999999999999 :\"f\" "))
  expect_profile_error(read_rprofmem(huge), "format", "line 1")
  largest <- write_text("18446744073709551615 :\"f\" ")
  t <- dm::dm_get_tables(read_rprofmem(largest))
  expect_identical(t$sample_values$value[t$sample_values$type == "alloc_space"], 2^64)
})

test_that("binary garbage and NUL bytes are format errors, never a crash", {
  garbage <- withr::local_tempfile(fileext = ".out")
  set.seed(34)
  writeBin(as.raw(sample(0:255, 4096, replace = TRUE)), garbage)
  expect_error(read_rprofmem(garbage), class = "profile_error")
  nul <- withr::local_tempfile(fileext = ".out")
  writeBin(c(charToRaw("8048 :\"f\" \n96 :\"g"), as.raw(0), charToRaw("\" \n")), nul)
  expect_profile_error(read_rprofmem(nul), "format", "line 2", "NUL")
})

test_that("damaged copies of a real file give a valid profile or a classed error", {
  lines <- readLines(sample_path("rprofmem", "alloc.out.gz"))
  bytes <- charToRaw(paste0(paste(lines, collapse = "\n"), "\n"))
  set.seed(3401)
  path <- withr::local_tempfile(fileext = ".out")
  outcomes <- character()
  for (i in 1:150) {
    damaged <- bytes[seq_len(sample(length(bytes), 1))]
    at <- sample(length(damaged), min(5, length(damaged)))
    damaged[at] <- as.raw(sample(0:255, length(at), replace = TRUE))
    writeBin(damaged, path)
    outcomes[[i]] <- tryCatch(
      {
        validate_profile(read_rprofmem(path))
        "ok"
      },
      profile_error = function(e) class(e)[[1]]
    )
  }
  expect_true(all(outcomes %in% c("ok", "profile_error_format")))
  expect_true(any(outcomes == "ok"))
  expect_true(any(outcomes == "profile_error_format"))
})

test_that("a stack of a million frames is read; deeper than the limit is refused", {
  frames <- paste(rep("\"f\"", 1e6), collapse = " ")
  deep <- write_text(paste0("8048 :", frames, " "))
  t <- dm::dm_get_tables(read_rprofmem(deep))
  expect_identical(nrow(t$sample_locations), 1000000L)
  deeper <- write_text(paste0("8048 :", frames, " \"g\" "))
  expect_profile_error(read_rprofmem(deeper), "limit", "line 1")
})

test_that("a gzip bomb of 2 GiB is refused while it is inflated, in bounded memory", {
  skip_unless_capped_processes()
  path <- bomb_file("rprofmem-lines.out.gz", "", "8048 :\"f\" \"g\" \n")
  expect_lt(file.size(path), 5e6)
  res <- read_in_capped_process("read_rprofmem", path)
  expect_true("profile_error_limit" %in% res$class, info = paste(res$class, res$message))
  expect_lt(res$peak, 600e6)
})
