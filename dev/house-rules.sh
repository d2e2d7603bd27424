#!/usr/bin/env bash
# The house rules kept by machine (see CONTRIBUTING.md): formatting and lints.
# Each check that fails prints the command that fixes it; the script then exits
# non-zero (after running every check, so one run shows all that is wrong).
# dev/test.sh runs it first. Run from anywhere; the R lint needs the package
# installed from this tree (dev/test.sh runs after the install).
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()

echo "== R formatting (styler, dev/style.R)"
if ! Rscript dev/style.R --check; then
  echo "FIX: Rscript dev/style.R" >&2
  failed+=("R formatting")
fi

echo "== R lints (lintr, .lintr)"
if ! Rscript dev/lint.R; then
  echo "FIX: what dev/lint.R printed above, then Rscript dev/lint.R again" >&2
  failed+=("R lints")
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "House rules broken: ${failed[*]}" >&2
  exit 1
fi
echo "house rules: all checks passed"
