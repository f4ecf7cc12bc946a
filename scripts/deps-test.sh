#!/usr/bin/env bash
# Install everything the README's test command (scripts/test.sh) runs: the build
# toolchain, the sanitizer and format tools, and the ground-truth material. Every
# external command the test scripts call must come from a package listed here (or
# from deps-build.sh); scripts/check-tools.sh proves it on every test run.
# Run as root (or with sudo) on a fresh Debian 12 machine.
set -euo pipefail
[ "${1:-}" = --list ] && export DEPS_LIST_ONLY=1
cd "$(dirname "$0")/.."
bash scripts/deps-build.sh
. scripts/deps-lib.sh
TEST_PKGS=(
  clang libclang-rt-dev clang-format # sanitizer builds, format check
  llvm lld                           # what CMake and clang pick up when present (llvm-ar, ld.lld)
  pkg-config                         # downstream-use tests
  dpkg-dev file                      # cpack -G DEB: dpkg-shlibdeps computes Depends, CPack finds
                                     # the ELF files with `file` (test_downstream)
  strace                             # scripts/check-tools.sh (which commands the tests run)
  groff-base                         # the generated man page formats without a warning
  libopenblas0-pthread               # calibration's BLAS (loaded at run time)
  chromium                           # the HTML report rendered in a browser
  python3 python3-jsonschema         # JSON schema checks, test helpers
  python3-torch python3-torchvision python3-onnx libonnx-testdata # ONNX ground truth
  nodejs                             # onnxruntime-node (ground-truth shapes)
  python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
  python3-numpy                      # the Python package: build, install, pytest
  git g++                           # llama.cpp truth: clone node-llama-cpp's bundle, compile
                                     # scripts/llm_probe.cpp and llama-bench
                                     # (scripts/llama_bench_build.sh), write GGUFs with gguf-py
)
# shellcheck disable=SC2086
deps_install "${TEST_PKGS[@]}" ${TP_EXTRA_DEPS:-}
# NodeSource's nodejs ships npm itself (and conflicts with Debian's npm package).
[ "${DEPS_LIST_ONLY:-0}" = 1 ] || command -v npm >/dev/null || deps_install npm
