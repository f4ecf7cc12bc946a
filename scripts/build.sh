#!/usr/bin/env bash
# Configure and build into ${BUILD_DIR:-build} (Release-ish, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DTP_WERROR=ON "$@" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" >/dev/null
