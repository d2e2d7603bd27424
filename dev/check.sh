#!/usr/bin/env bash
# R CMD build + R CMD check --as-cran of the package, the way CRAN would run it.
# Fails (exit 1) if the check reports an ERROR or a WARNING; prints every NOTE
# (each NOTE that remains is explained in cran-comments.md).
#
#   bash dev/check.sh            # full check (runs the test suite once more)
#   PROFILE_CHECK_ALL_TESTS=1 bash dev/check.sh
#                                # also the slow tests dev/test.sh runs anyway
#                                # (skipped by default): the comparisons with CRAN
#                                # profile 1.0.4 and go tool pprof, and the database
#                                # tests
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$HOME/.cargo/bin"

# The vendored crates ship inside the source package (CRAN builds offline): only
# those Cargo.lock uses (dev/vendor-trim.sh), else the full set as install.sh copies it.
bash dev/vendor-trim.sh || echo "check.sh: could not trim the vendored crates" >&2
if [ ! -f src/rust/vendor.tar.xz ]; then
  for d in ../shared/rust-vendor ../../shared/rust-vendor; do
    if [ -f "$d/vendor.tar.xz" ]; then
      cp "$d/vendor.tar.xz" src/rust/vendor.tar.xz
      break
    fi
  done
fi
[ -f src/rust/vendor.tar.xz ] || { echo "check.sh: no vendor.tar.xz found" >&2; exit 1; }

# inst/AUTHORS lists the vendored crates that Cargo.lock uses; make sure it is
# current. (profile_view()'s JavaScript is the package's own: nothing to fetch.)
Rscript dev/vendor-authors.R

work="${PROFILE_CHECK_DIR:-$(mktemp -d)}"
mkdir -p "$work"
echo "== R CMD build (in $work)"
src="$PWD"
build_start=$SECONDS
# R CMD build installs the package into a temporary library only to knit the
# vignettes, whose output does not depend on how the Rust code was optimised:
# that build skips the release profile's link-time optimisation (it took
# about as long as the check's own install, which keeps it: the check looks
# at the compiled code CRAN would build).
(cd "$work" && rm -f profile_*.tar.gz &&
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 R CMD build "$src")
build_time=$((SECONDS - build_start))
tarball=$(ls "$work"/profile_*.tar.gz)
ls -l "$tarball"

# No LaTeX on the project's machines: the PDF manual is not built (--no-manual);
# the Rd files are still checked. Suggested packages that are not installable
# here (none needed to run the examples or the vignette) do not stop the check.
# R CMD check runs the test suite a second time, after dev/test.sh: unless
# PROFILE_CHECK_ALL_TESTS is set, the tests that dev/test.sh has run against
# the same code and are slowest there skip in it: the comparisons with CRAN
# profile 1.0.4, with go tool pprof, and the tests of profiles in a database
# (tests/testthat/helper-check.R says why each judges nothing new there).
if [ -z "${PROFILE_CHECK_ALL_TESTS:-}" ]; then
  export PROFILE_SKIP_104=true PROFILE_CHECK_SECOND_RUN=true
fi
manual="--no-manual"
command -v pdflatex >/dev/null 2>&1 && manual=""
echo "== R CMD check --as-cran $manual"
status=0
check_start=$SECONDS
# _R_CHECK_SYSTEM_CLOCK_: the future-timestamps check first asks a time server on
# the internet, which the project's machines cannot reach ("unable to verify current
# time"); without it the file times are compared with the system clock.
# The check runs the tests of the tarball as CRAN would: without CI (which
# makes a missing browser tool or oracle a failure: the tarball has neither
# the test tools' npm modules nor ../shared; dev/test.sh runs those tests).
(cd "$work" && env -u CI -u PROFILE_OTLP_REQUIRE_ORACLES -u PROFILE_TEST_INSTALL \
  _R_CHECK_FORCE_SUGGESTS_=false _R_CHECK_CRAN_INCOMING_REMOTE_=false \
  _R_CHECK_SYSTEM_CLOCK_=false \
  R CMD check --as-cran $manual "$tarball") || status=$?
check_time=$((SECONDS - check_start))

log="$work/profile.Rcheck/00check.log"
[ -f "$log" ] || { echo "check.sh: no check log" >&2; exit 1; }
echo "== NOTEs"
awk '/\.\.\. NOTE$/ {p=1} /\.\.\. (OK|WARNING|ERROR)/ {p=0} /^\* / && !/NOTE$/ {p=0} p' "$log"
if grep -qE '\.\.\. (WARNING|ERROR)$|^ERROR|^WARNING' "$log" || [ "$status" -ne 0 ]; then
  echo "== R CMD check found errors or warnings:" >&2
  grep -nE -A15 '\.\.\. (WARNING|ERROR)$' "$log" >&2 || true
  exit 1
fi
echo "R CMD check: $(tail -1 "$log")"
# Where the check's time went: R CMD check's own timings of its long steps
# (CPU/elapsed seconds: the install, the examples, the tests, the vignettes).
echo "== where dev/check.sh's time went: R CMD build $build_time s, R CMD check $check_time s, of which"
grep -E '\[[0-9]+s/[0-9]+s\]' "$log" | sed -E 's/^[* ]*//; s/ \.\.\. / /' | grep -v '^\[' | sort -u
