#!/usr/bin/env bash
# Installs the test tools' npm modules, at the versions of each folder's
# package.json: the browser tests' (playwright-core, ajv, speedscope) into
# tests/browser/node_modules/ and the OTLP oracle's (protobufjs) into
# tests/otlp/node_modules/ (development only: git- and R-build-ignored). The
# package itself ships no third-party JavaScript: the view
# (inst/htmlwidgets/lib/profile-view/) is its own, so nothing is fetched to
# build or install it. Run by dev/install.sh; needs npm and
# the registry. Skips what is already there.
#
#   bash dev/vendor-js.sh
set -euo pipefail
cd "$(dirname "$0")/.."

command -v npm >/dev/null 2>&1 || { echo "vendor-js: npm is not installed" >&2; exit 1; }
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

for dir in tests/browser tests/otlp; do
  if [ -f "$dir/node_modules/.package-lock.json" ] &&
    [ "$dir/node_modules/.package-lock.json" -nt "$dir/package.json" ]; then
    echo "vendor-js: $dir/node_modules is current"
  else
    echo "vendor-js: npm install in $dir"
    (cd "$dir" && npm install --silent --no-package-lock >/dev/null)
  fi
done
