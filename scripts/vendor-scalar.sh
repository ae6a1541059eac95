#!/usr/bin/env bash
# Replaces src/system/docs/scalar/standalone.js with the browser bundle of @scalar/api-reference VERSION,
# taken from the package's registry tarball (npm checks its integrity). Only that one file is kept:
# installing the package would add its whole dependency tree (~240 MB) to node_modules.
# Usage: scripts/vendor-scalar.sh 1.72.1   (then update the version and sha256 in src/system/docs/scalar/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${1:?usage: scripts/vendor-scalar.sh VERSION}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "@scalar/api-reference@$VERSION" --silent >/dev/null && tar xzf "scalar-api-reference-$VERSION.tgz" package/dist/browser/standalone.js)
cp "$tmp/package/dist/browser/standalone.js" src/system/docs/scalar/standalone.js
echo "@scalar/api-reference $VERSION"
sha256sum src/system/docs/scalar/standalone.js
