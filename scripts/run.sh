#!/usr/bin/env bash
# The main job: build tensorplan and report on MODEL (or the bundled example
# when no model is given). Extra arguments go to `tensorplan report`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps-build.sh
BUILD_DIR=build bash scripts/build.sh
if [ $# -eq 0 ]; then
  exec ./build/tensorplan report
fi
exec ./build/tensorplan report "$@"
