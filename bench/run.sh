#!/bin/sh
# Runs every benchmark of bench/ and writes the results to bench/results/.
# From the package root:  sh bench/run.sh
#
# 1. makes the inputs in bench/data/ if they are missing (data-raw and bench
#    scripts: a real Rprof recording with memory and line profiling, a
#    300k-sample file built from it, a Go CPU profile of 45 s (14 000+ samples here) and a Go heap profile);
# 2. installs the package into .rlib;
# 3. runs bench/*.R (except the data script), each in its own R process, and
#    writes its output to bench/results/NAME.txt.
# CRAN profile 1.0.4 must be installed in $PROFILE_104_LIB (default
# ~/.cache/profile-1.0.4; see data-raw/install-profile-1.0.4.R).
set -eu
[ -f DESCRIPTION ] && [ -d bench ] || { echo "run from the package root" >&2; exit 1; }

mkdir -p bench/data bench/results
[ -f bench/data/rprof-30k.out ] && [ -f bench/data/rprof-300k.out ] || Rscript bench/rprof-data.R
[ -f bench/data/cpu.pb.gz ] && [ -f bench/data/heap.pb.gz ] ||
  sh data-raw/go-samples.sh bench/data -profiles cpu,heap -cpu-seconds 45
Rscript bench/scale-inputs.R

mkdir -p .rlib
R CMD INSTALL --no-multiarch -l .rlib . >bench/results/install.log 2>&1 ||
  { cat bench/results/install.log >&2; exit 1; }

for script in bench/*.R; do
  name=$(basename "$script" .R)
  [ "$name" = rprof-data ] || [ "$name" = scale-inputs ] && continue
  echo "== $name (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  if [ "$name" = pprof ]; then
    for f in cpu heap; do
      R_LIBS=.rlib Rscript "$script" "bench/data/$f.pb.gz" 2>&1 | tee "bench/results/$name-$f.txt"
    done
  else
    R_LIBS=.rlib Rscript "$script" 2>&1 | tee "bench/results/$name.txt"
  fi
done
