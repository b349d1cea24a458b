#!/usr/bin/env bash
# Rebuilds vendor/rdkafka-sys from the crate registry's rdkafka-sys and applies
# vendor/rdkafka-sys.patch (see vendor/README.md).
#   scripts/vendor-rdkafka.sh /tmp/x && diff -r /tmp/x vendor/rdkafka-sys   audits the copy
#   scripts/vendor-rdkafka.sh                                                rebuilds it in place
# To move to a new release, change the version and the checksum (and, once upstream fixes the
# crash, drop the patch and the [patch.crates-io] entry instead).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version=4.10.0+2.12.1
sha256=e234cf318915c1059d4921ef7f75616b5219b10b46e9f3a511a15eb4b56a3f77
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL "https://static.crates.io/crates/rdkafka-sys/rdkafka-sys-$version.crate" -o "$work/crate.tar.gz"
echo "$sha256  $work/crate.tar.gz" | sha256sum -c --quiet
tar -xzf "$work/crate.tar.gz" -C "$work"
src="$work/rdkafka-sys-$version"
dst=${1:-vendor/rdkafka-sys}
if [ -e "$dst" ] && ! grep -qs '^name = "rdkafka-sys"' "$dst/Cargo.toml"; then
    echo "$dst exists and is not a copy of rdkafka-sys: refusing to replace it" >&2
    exit 1
fi
rm -rf "$dst"
mkdir -p "$dst/librdkafka/packaging"
# The crate's build (`./configure && make libs`) reads only these: librdkafka's own tests,
# examples and packaging are left out (8 MB of 16).
cp -a "$src/Cargo.toml" "$src/build.rs" "$src/README.md" "$src/src" "$src/tests" "$dst/"
find "$src/librdkafka" -maxdepth 1 -type f ! -name '.*' -exec cp -a {} "$dst/librdkafka/" \;
cp -a "$src/librdkafka/mklove" "$src/librdkafka/src" "$src/librdkafka/src-cpp" "$dst/librdkafka/"
cp -a "$src/librdkafka/packaging/get_version.py" "$dst/librdkafka/packaging/"
patch -d "$dst" -p1 --fuzz=0 --no-backup-if-mismatch --forward --quiet < vendor/rdkafka-sys.patch
echo "vendor/rdkafka-sys rebuilt from rdkafka-sys $version with vendor/rdkafka-sys.patch"
