#!/usr/bin/env bash
# Runs every test: the house rules (formatting and lints, dev/house-rules.sh),
# the Rust core's `cargo test` (incl. property tests), then the R test suite
# against the installed package. Exits non-zero if anything fails; a broken
# house rule fails the run after the tests have run, with the fixing command
# printed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$HOME/.cargo/bin"

echo "== house rules (dev/house-rules.sh)"
house_rules=ok
bash dev/house-rules.sh || house_rules=failed

echo "== cargo test (profile-core, and the binding's shape tests)"
# Property tests run 100 000 cases each in CI (10 000 for the three that read
# every input in 1, 2, 3 and 7 chunks on threads); locally a few thousand,
# unless PROFILE_PROPTEST_CASES says otherwise. (proptest's own PROPTEST_CASES
# would override every count, those of the costly properties too.)
if [ "${CI:-}" = "true" ] && [ -z "${PROFILE_PROPTEST_CASES:-}" ]; then
  export PROFILE_PROPTEST_CASES=100000
fi
echo "property test cases: ${PROFILE_PROPTEST_CASES:-default (local)}${PROPTEST_CASES:+ (PROPTEST_CASES=$PROPTEST_CASES overrides)}"
cargo test --release --manifest-path src/rust/Cargo.toml -p profile-core -p profile 2>&1 | tee /tmp/profile-cargo-test.log
grep -E '^test result:' /tmp/profile-cargo-test.log | awk '{p+=$4; f+=$6} END {print "cargo: " p " passed, " f " failed"}'

echo "== R tests (testthat)"
# The differential test against Go's pprof parser (test-pprof-oracle.R) runs
# 20 000 damaged files in CI, 2000 locally, unless PROFILE_ORACLE_CASES says
# otherwise.
if [ "${CI:-}" = "true" ] && [ -z "${PROFILE_ORACLE_CASES:-}" ]; then
  export PROFILE_ORACLE_CASES=20000
fi
echo "pprof oracle cases: ${PROFILE_ORACLE_CASES:-2000 (local default)}"
Rscript dev/run-tests.R

if [ "$house_rules" != ok ]; then
  echo "dev/test.sh: the house rules failed (see \"== house rules\" above for the fixing commands)" >&2
  exit 1
fi
