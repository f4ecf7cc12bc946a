#!/usr/bin/env bash
# Build and test the Python package the way a user installs it: a fresh virtual
# environment (Debian's python3 with its system packages: pytest, numpy, onnx), then
# `pip install --no-index --no-build-isolation ./python` (the extension compiles the C
# library's sources), then pytest on python/tests. TENSORPLAN_CLI points the tests that
# compare with the CLI at a built binary (default build/tensorplan).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tensorplan-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --no-index --no-build-isolation --no-cache-dir ./python
rm -rf python/build python/*.egg-info # setuptools' in-tree leftovers
export TENSORPLAN_CLI=${TENSORPLAN_CLI:-$PWD/build/tensorplan}
(cd "$tmp" && "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests")
