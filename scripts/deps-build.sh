#!/usr/bin/env bash
# Install what the main job (scripts/run.sh) needs: a C compiler, make and CMake.
# A fresh Debian 12 machine with a compiler and CMake already has them, so this
# is quick and installs nothing there. Run as root (or with sudo).
set -euo pipefail
[ "${1:-}" = --list ] && export DEPS_LIST_ONLY=1
. "$(dirname "$0")/deps-lib.sh"
deps_install build-essential cmake
