#!/usr/bin/env bash
# Fetches the third-party JavaScript of profile_view() from npm, at pinned
# versions, into inst/htmlwidgets/lib/ (shipped in the package, never
# committed: .gitignore lists the directories), the browser tests' tools
# into tests/browser/node_modules/ and the OTLP oracle's protobufjs into
# tests/otlp/node_modules/ (development only: git- and R-build-ignored). Run
# by dev/install.sh and dev/check.sh; needs npm and the registry. Skips what
# is already there at the pinned version.
#
#   bash dev/vendor-js.sh            # both
#   bash dev/vendor-js.sh --lib      # only the package's libraries
#
# The libraries' licenses are listed in inst/AUTHORS and LICENSE.note; a new
# library or version must be added there too.
set -euo pipefail
cd "$(dirname "$0")/.."

D3=7.9.0
D3_FLAME_GRAPH=5.0.0
lib=inst/htmlwidgets/lib

only_lib=no
[ "${1:-}" = "--lib" ] && only_lib=yes

command -v npm >/dev/null 2>&1 || { echo "vendor-js: npm is not installed" >&2; exit 1; }
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# npm pack NAME@VERSION into $tmp/NAME, then copy the named files of the
# package into DIR, with the package's license, and note the version there.
vendor() {
  local name=$1 version=$2 dir=$3
  shift 3
  if [ -f "$dir/VERSION" ] && [ "$(cat "$dir/VERSION")" = "$name@$version" ]; then
    echo "vendor-js: $name@$version is current"
    return
  fi
  echo "vendor-js: npm pack $name@$version"
  mkdir -p "$tmp/$name"
  (cd "$tmp/$name" && npm pack --silent "$name@$version" >/dev/null && tar xzf ./*.tgz)
  rm -rf "$dir"
  mkdir -p "$dir"
  for f in "$@" LICENSE; do
    cp "$tmp/$name/package/$f" "$dir/"
  done
  echo "$name@$version" >"$dir/VERSION"
}

vendor d3 "$D3" "$lib/d3" dist/d3.min.js
vendor d3-flame-graph "$D3_FLAME_GRAPH" "$lib/d3-flame-graph" dist/d3-flamegraph.umd.min.js

[ "$only_lib" = yes ] && exit 0

# The test tools' npm modules, at the versions of each folder's package.json:
# the browser tests (tests/browser) and the OTLP oracle (tests/otlp).
for dir in tests/browser tests/otlp; do
  if [ -f "$dir/node_modules/.package-lock.json" ] &&
    [ "$dir/node_modules/.package-lock.json" -nt "$dir/package.json" ]; then
    echo "vendor-js: $dir/node_modules is current"
  else
    echo "vendor-js: npm install in $dir"
    (cd "$dir" && npm install --silent --no-package-lock >/dev/null)
  fi
done
