#!/bin/sh
# Writes the Go pprof sample files with data-raw/go/ (standard library only,
# builds offline).
#
#   data-raw/go-samples.sh                     # -> inst/samples/pprof/
#                                              #    (and pprof-second-run/: cpu, heap)
#   data-raw/go-samples.sh DIR [FLAGS...]      # e.g. a large CPU profile:
#   data-raw/go-samples.sh bench/data -profiles cpu -cpu-seconds 25
#
# Run from the package root. FLAGS are passed on to the program
# (-cpu-seconds, -cpu-rate, -profiles; see data-raw/go/main.go).
set -eu

root=$(pwd)
if [ ! -f "$root/data-raw/go/main.go" ]; then
  echo "run this script from the package root" >&2
  exit 1
fi

out=${1:-inst/samples/pprof}
[ $# -gt 0 ] && shift
case $out in
  /*) ;;
  *) out="$root/$out" ;;
esac
mkdir -p "$out"

# No network: the program needs nothing outside the standard library.
export GOPROXY=off GOFLAGS= GO111MODULE=on
export GOCACHE="${GOCACHE:-${TMPDIR:-/tmp}/profile-go-cache}"

# Build into a fixed place: the executable's path is recorded in the
# profiles' mapping table. -trimpath keeps local paths out of file names.
bindir="${TMPDIR:-/tmp}/profile-go-samples"
mkdir -p "$bindir"
(cd "$root/data-raw/go" && go build -trimpath -o "$bindir/profilesamples" .)

# StartCPUProfile prints a harmless warning about the sampling rate;
# anything else on stderr is shown.
log="$bindir/stderr.txt"
if ! "$bindir/profilesamples" -out "$out" "$@" 2>"$log"; then
  cat "$log" >&2
  exit 1
fi
grep -v 'cannot set cpu profile rate' "$log" >&2 || true

# The default output gets a second run of the same program (CPU and heap
# profiles) in inst/samples/pprof-second-run/: what profile_diff() is tested on.
second="$root/inst/samples/pprof-second-run"
if [ "$out" = "$root/inst/samples/pprof" ]; then
  mkdir -p "$second"
  if ! "$bindir/profilesamples" -out "$second" -profiles cpu,heap "$@" 2>"$log"; then
    cat "$log" >&2
    exit 1
  fi
fi

# And, in inst/samples/pprof-unicode/, a CPU profile of functions whose names
# are not ASCII (größe, café, work٣ next to work3): what the verbs' patterns
# are tested on against go tool pprof (\d, \w are ASCII in Go).
unicode="$root/inst/samples/pprof-unicode"
if [ "$out" = "$root/inst/samples/pprof" ]; then
  mkdir -p "$unicode"
  if ! "$bindir/profilesamples" -out "$unicode" -profiles unicode -cpu-seconds 3 "$@" 2>"$log"; then
    cat "$log" >&2
    exit 1
  fi
fi

# Check that pprof reads every file that was written.
for f in "$out"/*.pb.gz "$second"/*.pb.gz "$unicode"/*.pb.gz; do
  [ -f "$f" ] || continue
  go tool pprof -raw "$f" >/dev/null 2>&1 || {
    echo "go tool pprof cannot read $f" >&2
    exit 1
  }
done
ls -l "$out"/*.pb.gz "$second"/*.pb.gz "$unicode"/*.pb.gz 2>/dev/null || true
