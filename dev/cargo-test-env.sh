# The cargo settings of the Rust tests (dev/test.sh's `cargo test --release`)
# and of the house rules' clippy (dev/house-rules.sh), which share the build
# scripts and proc macros they compile. Sourced by both.
#
# The tests are built without the release build's link-time optimisation and
# single codegen unit (Cargo.toml's [profile.release], which R CMD INSTALL
# uses): these settings change how long the compiler takes and how fast the
# code runs, not what it computes. On the project's 2 cores the test build
# took 505 s of CPU with them and 310 s without (and without the examples,
# which clippy --all-targets compiles already), and the property tests about
# 5 % more CPU time without them. The R tests test the package as R CMD
# INSTALL builds it, with LTO.
export CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-false}"
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS="${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-16}"
