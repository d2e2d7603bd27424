#!/usr/bin/env bash
# The house rules kept by machine (CONTRIBUTING.md, dev/ARCHITECTURE.md
# "Conventions"): formatting and lints of the Rust code, and of the R code.
# dev/test.sh runs this before the tests, so CI (.ci/run) does too. Each check
# that fails prints the command that fixes (or shows) what it found; the
# script fails if any did.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$HOME/.cargo/bin"

failed=()

# Runs a check: `name`, the command that fixes or shows the problem, then the
# check's own command.
check() {
  local name=$1 fix=$2
  shift 2
  echo "== house rules: $name"
  if ! "$@"; then
    echo "house rules: $name failed; to fix: $fix" >&2
    failed+=("$name")
  fi
}

# ---- Rust: rustfmt and clippy (settings: src/rust/rustfmt.toml,
# [workspace.lints] in src/rust/Cargo.toml, src/rust/clippy.toml). clippy runs
# on the whole workspace: the crate at the root alone would leave the core's
# tests and examples out.
check "cargo fmt" "(cd src/rust && cargo fmt --all)" \
  cargo fmt --manifest-path src/rust/Cargo.toml --all -- --check
check "cargo clippy" \
  "(cd src/rust && cargo clippy --workspace --all-targets -- -D warnings), then fix what it lists" \
  cargo clippy --manifest-path src/rust/Cargo.toml --workspace --all-targets --quiet -- -D warnings

# ---- R: styler and lintr (added by the R side of the house rules, branch house-r)

if [ ${#failed[@]} -gt 0 ]; then
  echo "house rules: failed: ${failed[*]}" >&2
  exit 1
fi
echo "house rules: all checks passed"
