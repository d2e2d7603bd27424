#!/usr/bin/env bash
# Installs the browser tests' npm tools (playwright-core, ajv, speedscope, at
# the versions of tests/browser/package.json) into tests/browser/node_modules/
# (development only: git- and R-build-ignored). The package itself ships no
# third-party JavaScript: the view (inst/htmlwidgets/lib/profile-view/) is its
# own, so nothing is fetched to build or install it. Run by dev/install.sh and
# dev/check.sh; needs npm and the registry. Skips what is already there.
#
#   bash dev/vendor-js.sh
set -euo pipefail
cd "$(dirname "$0")/.."

command -v npm >/dev/null 2>&1 || { echo "vendor-js: npm is not installed" >&2; exit 1; }
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

if [ -f tests/browser/node_modules/.package-lock.json ] &&
  [ tests/browser/node_modules/.package-lock.json -nt tests/browser/package.json ]; then
  echo "vendor-js: tests/browser/node_modules is current"
else
  echo "vendor-js: npm install in tests/browser"
  (cd tests/browser && npm install --silent --no-package-lock >/dev/null)
fi
