#!/usr/bin/env bash
# The house rules kept by machine (CONTRIBUTING.md, dev/ARCHITECTURE.md
# "Conventions"): formatting and lints of the Rust code, of the R code, the
# call graph of the R files and their test files, and the lints of the view's
# JavaScript.
# dev/test.sh runs this, so CI (.ci/run) does too. Each check that fails prints
# the command that fixes (or shows) what it found; every check runs, so one run
# shows all that is wrong, and the script fails if any did. The R lint needs
# the package installed from this tree (dev/test.sh runs after the install).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$HOME/.cargo/bin"

failed=()

# Runs a check: `name`, the command that fixes or shows the problem, then the
# check's own command. Prints the check's time when it ends (and all of them
# at the end), so that a log shows where the house rules' time goes.
timings=()
check() {
  local name=$1 fix=$2 start=$SECONDS
  shift 2
  echo "== house rules: $name"
  if ! "$@"; then
    echo "house rules: $name failed; to fix: $fix" >&2
    failed+=("$name")
  fi
  echo "== house rules: $name: $((SECONDS - start)) s"
  timings+=("$name $((SECONDS - start)) s")
}

# ---- Rust: rustfmt and clippy (settings: src/rust/rustfmt.toml,
# [workspace.lints] in src/rust/Cargo.toml, src/rust/clippy.toml). clippy runs
# on the whole workspace: the crate at the root alone would leave the core's
# tests and examples out. It checks in the release profile with the cargo
# settings of dev/test.sh's `cargo test` (dev/cargo-test-env.sh), so that the
# build scripts and proc macros it compiles are those the tests' build uses
# again; the lints are the same in either profile (no code of the package
# depends on debug_assertions), and the dev profile's optimised dependencies
# made it compile the proc macros at opt-level 2 (195 s of CPU instead of 84 s).
# shellcheck source=dev/cargo-test-env.sh
. dev/cargo-test-env.sh
check "cargo fmt" "(cd src/rust && cargo fmt --all)" \
  cargo fmt --manifest-path src/rust/Cargo.toml --all -- --check
check "cargo clippy" \
  "(cd src/rust && cargo clippy --workspace --all-targets -- -D warnings), then fix what it lists" \
  cargo clippy --manifest-path src/rust/Cargo.toml --release --workspace --all-targets --quiet -- -D warnings

# ---- Rust: the layout (dev/rust-layers.R; dev/ARCHITECTURE.md, "Core
# modules"): the core's layers each use only those below them, formats never
# import each other, no two modules of a folder use each other (in both
# crates), one module-file style, tests in files of their own.
check "Rust layout" "what dev/rust-layers.R printed above (Rscript dev/rust-layers.R --graph shows who uses whom)" \
  Rscript dev/rust-layers.R

# ---- R: styler (settings in dev/style.R) and lintr (.lintr).
check "R formatting" "Rscript dev/style.R" \
  Rscript dev/style.R --check
check "R lints" "what dev/lint.R printed above, then Rscript dev/lint.R again" \
  Rscript dev/lint.R

# ---- R: the files of R/ in layers (dev/call-graph.R, with codetools): no two
# files that use each other, directly or round a longer circle.
check "R call graph" \
  "move the functions it names below both files (Rscript dev/call-graph.R --edges lists every file's uses)" \
  Rscript dev/call-graph.R

# ---- R: tests that mirror the code (dev/test-files.R): every R file has its
# tests/testthat/test-<file>.R or a cross-cutting suite, as the table "R files
# and their tests" of dev/ARCHITECTURE.md says, and every test file is there.
check "R test files" \
  "rename the test files it names, or correct the table in dev/ARCHITECTURE.md" \
  Rscript dev/test-files.R

# ---- R: every package the code, tests and vignettes use with `::` or attach
# is declared in DESCRIPTION (dev/declared-packages.R), which otherwise only
# R CMD check --as-cran would report.
check "R declared packages" \
  "add the packages it names to Suggests (or Imports) in DESCRIPTION" \
  Rscript dev/declared-packages.R

# ---- JavaScript: eslint's recommended rules over the view's own scripts and its
# test tools (tests/js, tests/browser/driver.mjs)
# (settings: tests/browser/eslint.config.mjs; eslint is one of the browser
# tests' npm tools, installed by dev/vendor-js.sh). Without it the check is
# left out, except in CI, where dev/install.sh has installed it.
eslint=tests/browser/node_modules/eslint/bin/eslint.js
if [ -f "$eslint" ] && command -v node >/dev/null 2>&1; then
  check "JavaScript lints" "what eslint printed above (node $eslint --fix may fix some)" \
    node "$eslint" --config tests/browser/eslint.config.mjs inst/htmlwidgets \
    tests/js tests/browser/driver.mjs
elif [ "${CI:-}" = "true" ]; then
  echo "house rules: eslint is missing (bash dev/vendor-js.sh installs it)" >&2
  failed+=("JavaScript lints")
else
  echo "== house rules: JavaScript lints left out: no eslint (bash dev/vendor-js.sh installs it)"
fi

echo "== house rules: times: $(printf '%s; ' "${timings[@]}")"
if [ ${#failed[@]} -gt 0 ]; then
  echo "house rules: failed: ${failed[*]}" >&2
  exit 1
fi
echo "house rules: all checks passed"
