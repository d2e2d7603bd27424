# Refinements in the browser view (issue 36): focus, ignore, hide, show and
# prune_from applied in the page, from the search box's menu and from a
# frame's context menu, judged by profile_summary() of the profile refined by
# the R verbs of the same name. Headless chromium, as test-view-browser.R.

rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")
pprof_sample <- function(name) system.file("samples", "pprof", name, package = "profile")

# The profile the R verbs give for `steps` (list of c(verb, pattern)), in order.
refined_by_verbs <- function(x, steps) {
  for (s in steps) x <- get(paste0("profile_", s[[1]]))(x, s[[2]])
  x
}

# The page's Top (a state in table mode) equals profile_summary() of `y`:
# the same functions, flat and cum.
expect_top_equal <- function(state_table, y, type, what) {
  summary <- profile_summary(y, type = type, n = Inf)
  summary <- summary[summary$self != 0 | summary$total != 0, ]
  table <- state_table[state_table$flat != 0 | state_table$cum != 0, ]
  expect_setequal(table$name, summary$name)
  m <- match(summary$name, table$name)
  expect_equal(table$flat[m], summary$self, label = paste(what, "flat"))
  expect_equal(table$cum[m], summary$total, label = paste(what, "cum"))
}

# One browser job: after each refinement (in the order given) the Top table,
# against the R verbs' result of the steps so far.
check_refinements <- function(x, type, steps, via) {
  actions <- list(list(mode = "table"))
  # the state after each step's last action (states: 1 after loading)
  tables <- integer()
  for (i in seq_along(steps)) {
    s <- steps[[i]]
    if (via[[i]] == "search") {
      actions <- c(actions, list(list(refine = s[[1]], pattern = s[[2]])))
    } else {
      # a frame's context menu, in the flame graph; then back to the table
      actions <- c(actions, list(
        list(mode = "graph"), list(menu = via[[i]], verb = s[[1]]), list(mode = "table")
      ))
    }
    tables <- c(tables, length(actions) + 1L)
  }
  actions <- c(actions, list(list(rcode = TRUE)))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = type), actions = actions
  ))
  expect_clean_load(result)
  states <- result$states
  expect_true(all(states$mode[tables] == "table"))
  for (i in seq_along(steps)) {
    state <- state_at(result, tables[[i]])
    expect_identical(nrow(state$refinements), i)
    expect_identical(state$refinements$verb, vapply(steps[seq_len(i)], `[[`, "", 1))
    y <- suppressWarnings(refined_by_verbs(x, steps[seq_len(i)]))
    expect_top_equal(state$table, y, type, paste(state$refinements$pattern, collapse = " |> "))
  }
  result
}

test_that("refinements in the page equal the R verbs on an Rprof profile", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  steps <- list(
    c("focus", "^time_round$"), c("hide", "^(tryCatch|tryCatchList|tryCatchOne|doTryCatch)$"),
    c("ignore", "^is\\.odd\\.num$"), c("show", "^(time_round|my\\.fun|cmp|h|genCode)$"),
    c("prune_from", "^cmp$")
  )
  result <- check_refinements(x, "samples", steps, rep("search", 5))
  last <- state_at(result, nrow(result$states))
  # the R code gives the same profile: it is run here
  expect_match(last$rcode, "^x \\|>\n  profile_focus\\(")
  code <- parse(text = last$rcode)[[1]]
  y <- suppressWarnings(eval(code, list(x = x)))
  expect_equal(
    profile_summary(y, type = "samples", n = Inf),
    profile_summary(suppressWarnings(refined_by_verbs(x, steps)), type = "samples", n = Inf)
  )
})

test_that("refinements from a frame's context menu equal the R verbs on a Go CPU profile", {
  skip_if_no_browser()
  x <- read_pprof(pprof_sample("cpu.pb.gz"))
  steps <- list(
    c("focus", "^main\\.hashChain$"), c("hide", "^crypto/sha256\\.Sum256$"),
    # prune_from matches names without their argument lists, as Go does:
    # the menu of crypto/sha256.(*digest).Write prunes from crypto/sha256.
    c("prune_from", "^crypto/sha256\\.$")
  )
  result <- check_refinements(x, "cpu", steps, c(
    "main.hashChain", "crypto/sha256.Sum256", "crypto/sha256.(*digest).Write"
  ))
  # the chips name the patterns the menu made: the function's name, exactly
  last <- state_at(result, nrow(result$states))
  expect_identical(last$refinements$pattern, vapply(steps, `[[`, "", 2))
  # the flame graph after the refinements draws the frames of the R verbs'
  # profile: every function with a total, none other
  graph <- which(result$states$mode == "graph")
  frames <- view_frames(state_at(result, graph[[length(graph)]]))
  y <- suppressWarnings(refined_by_verbs(x, steps))
  summary <- profile_summary(y, type = "cpu", n = Inf)
  expect_setequal(setdiff(unique(frames$name), "root"), summary$name[summary$total > 0])
})

test_that("a chip removed undoes its refinement; a refused pattern changes nothing", {
  skip_if_no_browser()
  x <- read_pprof(pprof_sample("cpu.pb.gz"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x, type = "cpu"),
    actions = list(
      list(mode = "table"),
      list(refine = "ignore", pattern = "^runtime\\."),
      list(refine = "focus", pattern = "^main\\."),
      list(unrefine = 0),
      list(refine = "hide", pattern = "(a)\\1"),
      list(refine = "focus", pattern = "^no such function$"),
      list(unrefine = 1), list(unrefine = 0)
    )
  ))
  expect_clean_load(result)
  states <- result$states
  n_chips <- vapply(seq_len(nrow(states)), function(i) NROW(state_at(result, i)$refinements), 1)
  expect_identical(n_chips, c(0, 0, 1, 2, 1, 1, 2, 1, 0))
  # after removing the first chip, only the focus is in force
  expect_top_equal(
    state_at(result, 5)$table, profile_focus(x, "^main\\."), "cpu", "focus after removing ignore"
  )
  expect_match(states$refine_message[[6]], "back-references")
  # a pattern that matches nothing is kept, marked (R warns), and leaves no sample
  expect_true(state_at(result, 7)$refinements$no_match[[2]])
  expect_identical(NROW(state_at(result, 7)$table), 0L)
  # every chip removed: the whole profile again
  expect_top_equal(state_at(result, 9)$table, x, "cpu", "no refinement")
})

test_that("the source panel follows refinements: it says its lines are the whole profile's", {
  skip_if_no_browser()
  x <- read_rprof(rprof_sample("line.out"))
  result <- run_browser_job(list(
    command = "view", html = view_file(x),
    actions = list(
      list(source = TRUE), list(refine = "focus", pattern = "^is\\.odd\\.num$"),
      list(mode = "table"), list(unrefine = 0)
    )
  ))
  expect_clean_load(result)
  # (the panel opened: the sample's source files are not on this machine)
  panels <- lapply(2:5, function(i) state_at(result, i)$source)
  expect_false(any(vapply(panels, is.null, TRUE)))
  whole <- "Line values are those of the whole profile"
  # refined, whatever the view; the refinement removed: the note goes
  expect_no_match(panels[[1]]$note, whole, fixed = TRUE)
  expect_match(panels[[2]]$note, whole, fixed = TRUE)
  expect_match(panels[[3]]$note, whole, fixed = TRUE)
  expect_no_match(panels[[4]]$note, whole, fixed = TRUE)
  # the lines' values stay those of the whole profile (profile_summary by line)
  by_line <- profile_summary(x, by = "line", n = Inf)
  for (panel in panels[2:4]) {
    of_file <- by_line[basename(by_line$filename) == basename(panel$file), ]
    valued <- panel$lines[panel$lines$has_value, ]
    expect_setequal(valued$line, of_file$line)
    expect_equal(valued$total, of_file$total[match(valued$line, of_file$line)])
  }
})
