#!/usr/bin/env bash
# Installs everything profile needs on a fresh Debian machine of this project's kind
# (system packages, CRAN packages Debian lacks, the vendored Rust crates, Go for
# `go tool pprof`, CRAN profile 1.0.4 in a separate library for comparison tests,
# the browser tests' tools from npm (node 20 or later and npm; Debian's when the
# machine has none), chromium for those tests), then installs
# the package itself. With --demo, it then reads a sample profile, prints a
# summary and writes a pprof file that `go tool pprof -top` reads.
set -euo pipefail
cd "$(dirname "$0")/.."

demo=no
[ "${1:-}" = "--demo" ] && demo=yes

debs=(
  golang-go xz-utils bzip2 pandoc qpdf tidy devscripts
  r-cran-dplyr r-cran-tidyr r-cran-purrr r-cran-igraph r-cran-glue r-cran-memoise
  r-cran-pillar r-cran-tidyselect r-cran-lifecycle r-cran-backports r-cran-tibble
  r-cran-rlang r-cran-vctrs r-cran-withr r-cran-cli r-cran-testthat
  r-cran-profvis r-cran-roxygen2 r-cran-bench r-cran-lobstr r-cran-knitr
  r-cran-rmarkdown r-cran-rprotobuf r-cran-png
  # oracles and backends of the tests: Go's own pprof parser, a browser for the
  # viewer, SQLite and a PostgreSQL server for profiles in a database, protoc
  # (--decode_raw and --decode) for OTLP profiles
  golang-github-google-pprof-dev chromium protobuf-compiler
  r-cran-htmlwidgets r-cran-jsonlite r-cran-dbi r-cran-dbplyr r-cran-rsqlite
  postgresql libpq-dev
  # the other PostgreSQL driver the database functions are tested with
  r-cran-rpostgresql
  # the reference reader of Rprofmem() files (test-rprofmem*.R), and the
  # processes and parallel backends of the recording tests
  r-cran-profmem r-cran-callr r-cran-future r-cran-future.apply r-cran-parallelly
  # the house rules' R lints (dev/lint.R); styler, the formatter, is CRAN's (below)
  r-cran-lintr
)
missing=()
for d in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || missing+=("$d")
done
# node and npm run the browser tests and install their tools (dev/vendor-js.sh):
# Debian's when there are none (a machine may have them from elsewhere, such as
# NodeSource's nodejs, which carries npm and conflicts with Debian's npm).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "Not root: please install these Debian packages: ${missing[*]}" >&2
  fi
fi

# dm (and the newer dplyr/vctrs/... it needs) are built from source through CRAN.
echo "== CRAN packages"
# RPostgres (CRAN; built against libpq-dev) is the PostgreSQL driver of the
# tests: the DBI driver that dbplyr and dm are tested against, which Debian's
# older RPostgreSQL is not.
# styler (not in Debian) formats the R code and checks its formatting
# (dev/style.R, in dev/house-rules.sh).
Rscript dev/install-cran.R dm RPostgres styler

# CRAN profile 1.0.4 goes into its own library (same package name as this one); the
# comparison tests look for it there and are skipped without it.
export PROFILE_104_LIB="${PROFILE_104_LIB:-$HOME/.cache/profile-1.0.4}"
echo "== CRAN profile 1.0.4 into $PROFILE_104_LIB (for comparison tests)"
Rscript data-raw/install-profile-1.0.4.R ||
  echo "could not install profile 1.0.4; comparison tests will be skipped" >&2

# Rust crates come from the vendored tarball beside the project (no crate registry).
vendor=""
for d in ../shared/rust-vendor ../../shared/rust-vendor; do
  [ -f "$d/vendor.tar.xz" ] && vendor="$d" && break
done
if [ -n "$vendor" ]; then
  echo "== vendored crates from $vendor"
  "$vendor/use-vendored-crates"
  cp "$vendor/vendor.tar.xz" src/rust/vendor.tar.xz
fi

# The test tools' npm modules (browser tests, the OTLP oracle's protobufjs), at
# pinned versions; never committed.
echo "== the test tools' npm modules (dev/vendor-js.sh)"
bash dev/vendor-js.sh

echo "== R CMD INSTALL (after $SECONDS s of the steps above)"
install_start=$SECONDS
R CMD INSTALL --no-multiarch .
echo "== R CMD INSTALL: $((SECONDS - install_start)) s"

if [ "$demo" = yes ]; then
  Rscript dev/demo.R
fi
