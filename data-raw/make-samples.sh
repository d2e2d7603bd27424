#!/bin/sh
# Regenerates every sample file in inst/samples/ (see data-raw/README.md).
#
#   sh data-raw/make-samples.sh
#
# Needs R with RProtoBuf, Go >= 1.19 (standard library only, works offline)
# and, once, access to CRAN to install profile 1.0.4 into its own library
# ($PROFILE_104_LIB, default /opt/profile-1.0.4). Profiles differ from run
# to run; rerunning simply replaces the files.
set -eu
cd "$(dirname "$0")/.."

echo "== Rprof samples (inst/samples/rprof)"
Rscript data-raw/rprof-samples.R

echo "== Rprofmem samples (inst/samples/rprofmem)"
Rscript data-raw/rprofmem-samples.R

echo "== Go pprof samples (inst/samples/pprof)"
sh data-raw/go-samples.sh

echo "== profile 1.0.4 reference (inst/samples/proto)"
Rscript data-raw/install-profile-1.0.4.R
Rscript data-raw/proto-samples.R

echo "== OTLP samples (inst/samples/otlp) and damaged OTLP files (tests/testthat/fixtures/otlp-defects)"
bash dev/vendor-js.sh
node data-raw/otlp-samples.mjs
