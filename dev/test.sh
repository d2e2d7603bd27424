#!/usr/bin/env bash
# Runs every test: the house rules (formatting and lints, dev/house-rules.sh),
# the Rust core's `cargo test` (incl. property tests), then the R test suite
# against the installed package. Exits non-zero if anything fails; a broken
# house rule fails the run after the tests have run, with the fixing command
# printed. Each part prints its elapsed and CPU time when it ends, and the
# run ends with a table of them ("== where the time went"), so that every
# log (CI's too) shows where its time goes; the R suite also lists its
# slowest test files.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$HOME/.cargo/bin"

# The time of each part: elapsed, and the CPU time (user + system) of its
# processes, from bash's `times` (the children that have ended), which must
# run in this shell, not in a command substitution.
cpu_file=$(mktemp)
children_cpu_of() {
  tail -n 1 "$1" | awk '{
    s = 0
    for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }
    printf "%.1f", s
  }'
}
parts=()
run_start=$SECONDS
# Runs a part of the tests: `name`, then its command; records its times and
# returns the command's status.
part() {
  local name=$1 start=$SECONDS cpu_start cpu_end status=0
  shift
  times >"$cpu_file"
  cpu_start=$(children_cpu_of "$cpu_file")
  "$@" || status=$?
  times >"$cpu_file"
  cpu_end=$(children_cpu_of "$cpu_file")
  local cpu
  cpu=$(awk -v a="$cpu_start" -v b="$cpu_end" 'BEGIN { printf "%.0f", b - a }')
  echo "== $name: $((SECONDS - start)) s (CPU $cpu s)"
  parts+=("$(printf '%-34s %6d s %8s s' "$name" $((SECONDS - start)) "$cpu")")
  return "$status"
}

echo "== house rules (dev/house-rules.sh)"
house_rules=ok
part "house rules" bash dev/house-rules.sh || house_rules=failed

echo "== cargo test (profile-core, and the binding's shape tests)"
# Property tests run 50 000 cases each in CI (2 500 for the three that read
# every input in 1, 2, 3 and 7 chunks on threads); locally a few thousand,
# unless PROFILE_PROPTEST_CASES says otherwise. (proptest's own PROPTEST_CASES
# would override every count, those of the costly properties too.) proptest
# draws new cases at every run, so each CI run adds cases to those before it;
# at 100 000 (10 000) the property tests took 9.5 of CI's 60 minutes.
if [ "${CI:-}" = "true" ] && [ -z "${PROFILE_PROPTEST_CASES:-}" ]; then
  export PROFILE_PROPTEST_CASES=50000
fi
echo "property test cases: ${PROFILE_PROPTEST_CASES:-default (local)}${PROPTEST_CASES:+ (PROPTEST_CASES=$PROPTEST_CASES overrides)}"
# The library's unit tests and the integration tests (`--lib --tests`): the
# examples (timing tools, src/rust/core/examples) are compiled by the house
# rules' clippy --all-targets, and built here again they took a sixth of the
# tests' build; the crates have no doc tests (their doc comments' blocks are
# text). Built first, then run, so that each is timed; with the settings of
# dev/cargo-test-env.sh (no LTO), shared with clippy.
cargo_tests=(cargo test --release --manifest-path src/rust/Cargo.toml -p profile-core -p profile --lib --tests)
cargo_log=$(mktemp)
part "cargo test: build" bash -c '. dev/cargo-test-env.sh && "$@" --no-run' _ "${cargo_tests[@]}"
part "cargo test: run" bash -c \
  'set -o pipefail; . dev/cargo-test-env.sh && "$@" 2>&1 | tee "$0"' "$cargo_log" "${cargo_tests[@]}"
# Each test binary's time, then the totals.
awk '/^ *Running / { name = $NF; gsub(/[()]/, "", name); sub(/.*\//, "", name); sub(/-[0-9a-f]+$/, "", name) }
  /^test result:/ { print "cargo: " name ": " $4 " passed, " $6 " failed, " $NF }' "$cargo_log"
grep -E '^test result:' "$cargo_log" | awk '{p+=$4; f+=$6} END {print "cargo: " p " passed, " f " failed"}'
rm -f "$cargo_log"

echo "== R tests (testthat)"
# The differential test against Go's pprof parser (test-oracle-pprof.R) runs
# 6000 damaged files in CI, 2000 locally, unless PROFILE_ORACLE_CASES says
# otherwise; the mutation tests of OTLP files (tests/otlp/otlp-mutate.mjs,
# otlp_mutation_count() in helper-otlp-oracle.R) 4000 in CI, 2000 locally,
# unless PROFILE_OTLP_MUTATIONS says otherwise. In CI the random seed of both
# is the commit's (its hash's first 7 hex digits, as a number), so that each
# commit tries other damaged files and a failure is reproduced by giving the
# seed printed here; elsewhere it is 1. (At a fixed seed, CI ran the same
# 20 000 and 10 000 files every time: 16 of its 60 minutes, most of it in
# raising the errors of the refused files.)
if [ "${CI:-}" = "true" ]; then
  : "${PROFILE_ORACLE_CASES:=6000}" "${PROFILE_OTLP_MUTATIONS:=4000}"
  commit_seed=$(( 16#$(git rev-parse --short=7 HEAD 2>/dev/null || echo 1) ))
  : "${PROFILE_ORACLE_SEED:=$commit_seed}" "${PROFILE_OTLP_MUTATION_SEED:=$commit_seed}"
  export PROFILE_ORACLE_CASES PROFILE_OTLP_MUTATIONS PROFILE_ORACLE_SEED PROFILE_OTLP_MUTATION_SEED
  # the composition suite (test-compose-pipelines.R): 1000 pipelines from
  # the commit's seed in CI, 300 from seed 1 locally
  : "${PROFILE_COMPOSE_PIPELINES:=1000}" "${PROFILE_COMPOSE_SEED:=$commit_seed}"
  export PROFILE_COMPOSE_PIPELINES PROFILE_COMPOSE_SEED
fi
echo "pprof oracle cases: ${PROFILE_ORACLE_CASES:-2000 (local default)}, seed ${PROFILE_ORACLE_SEED:-1}"
echo "OTLP mutation cases: ${PROFILE_OTLP_MUTATIONS:-2000 (local default)}, seed ${PROFILE_OTLP_MUTATION_SEED:-1}"
echo "composition pipelines: ${PROFILE_COMPOSE_PIPELINES:-300 (local default)}, seed ${PROFILE_COMPOSE_SEED:-1}"
# In CI the OTLP tests' oracles (protoc, node with tests/otlp's protobufjs, go,
# RSQLite) and the real files of ../shared/otlp must be there: a missing one
# fails the test instead of skipping it (otlp_skip() in helper-otlp-oracle.R).
if [ "${CI:-}" = "true" ] && [ -z "${PROFILE_OTLP_REQUIRE_ORACLES:-}" ]; then
  export PROFILE_OTLP_REQUIRE_ORACLES=true
fi
echo "OTLP oracles required: ${PROFILE_OTLP_REQUIRE_ORACLES:-no (skipped when missing)}"
r_tests=ok
part "R tests (testthat)" Rscript dev/run-tests.R || r_tests=failed

echo "== the view's data layer (node --test tests/js/)"
# inst/htmlwidgets/lib/profile-view/pv-data.js under node's own test runner,
# judged against profile_summary() of a sample profile; its test runs
# tests/js/view-data.R with the package installed above (R_LIBS).
js_tests=ok
part "view data layer (node --test)" node --test tests/js/ || js_tests=failed

echo "== where the time went (elapsed, CPU of the part's processes)"
printf '%s\n' "${parts[@]}"
echo "dev/test.sh: $((SECONDS - run_start)) s in all"
rm -f "$cpu_file"

if [ "$r_tests" != ok ]; then
  echo "dev/test.sh: R tests failed (see \"== R tests\" above)" >&2
  exit 1
fi
if [ "$js_tests" != ok ]; then
  echo "dev/test.sh: the view's data-layer tests failed (see \"== the view's data layer\" above)" >&2
  exit 1
fi
if [ "$house_rules" != ok ]; then
  echo "dev/test.sh: the house rules failed (see \"== house rules\" above for the fixing commands)" >&2
  exit 1
fi
