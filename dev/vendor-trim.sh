#!/usr/bin/env bash
# Writes src/rust/vendor.tar.xz with only the crates src/rust/Cargo.lock uses (taken
# from the project's full vendored set, ../shared/rust-vendor), so that the source
# package stays small (about 4 MB instead of 7.5 MB). Dev-dependencies stay in: cargo
# needs every crate of the lock file to resolve it, even offline.
# Skips the work when the tarball was made from the same Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
script=""
for d in ../shared/rust-vendor ../../shared/rust-vendor; do
  [ -x "$d/use-vendored-crates" ] && script="$d/use-vendored-crates" && break
done
[ -n "$script" ] || { echo "vendor-trim: no use-vendored-crates script found" >&2; exit 1; }
full="$("$script" --dir)"

stamp=src/rust/.vendor-stamp
want="$(sha256sum src/rust/Cargo.lock | cut -c1-16) $(basename "$(dirname "$full")")"
if [ -f src/rust/vendor.tar.xz ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "vendor-trim: src/rust/vendor.tar.xz is current"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/vendor"
# name and version of every [[package]] of the lock file that comes from a registry
awk '/^\[\[package\]\]/ {n = ""; v = ""}
     /^name = /    {gsub(/"/, "", $3); n = $3}
     /^version = / {gsub(/"/, "", $3); v = $3}
     /^source = /  {print n, v}' src/rust/Cargo.lock |
while read -r name version; do
  # cargo vendor names a crate's directory name-version when several versions exist
  if [ -d "$full/$name-$version" ]; then
    cp -r "$full/$name-$version" "$tmp/vendor/"
  elif grep -q "^version = \"$version\"" "$full/$name/Cargo.toml" 2>/dev/null; then
    cp -r "$full/$name" "$tmp/vendor/"
  else
    echo "vendor-trim: $name $version is not in $full" >&2
    exit 1
  fi
done
tar -C "$tmp" -cf - vendor | xz -6 -T2 > "$tmp/vendor.tar.xz"
mv "$tmp/vendor.tar.xz" src/rust/vendor.tar.xz
echo "$want" > "$stamp"
echo "vendor-trim: src/rust/vendor.tar.xz ($(du -k src/rust/vendor.tar.xz | cut -f1) KiB, $(ls "$tmp/vendor" | wc -l) crates)"
