#!/usr/bin/env bash
# Build and run every test: a -Werror build with CTest, an ASan+UBSan build of
# the tests, a TSan build of the threaded tests, the clang-format check, and a
# check that every program the tests ran is installed by scripts/deps-*.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps-test.sh
bash scripts/fixtures.sh
bash scripts/fixtures-onnx.sh
# llama.cpp with RPC for tests/cli/test_multi_device_truth.sh, built here (minutes) rather than
# inside the test's CTest timeout; the test skips, saying so, when it could not be built
bash scripts/fixtures-multi.sh || echo "fixtures-multi: llama.cpp (RPC) not built; cli_test_multi_device_truth will skip"

# The build, the main CTest run and the format check run under strace (execve only);
# scripts/check-tools.py then proves each program they ran comes from a package that
# a fresh machine has or that the deps scripts install. The sanitizer test runs are
# not traced: LeakSanitizer refuses to run under ptrace.
trace=$(mktemp "${TMPDIR:-/tmp}/tensorplan-exec.XXXXXX")
trap 'rm -f "$trace"' EXIT
traced() { strace -f -qq --seccomp-bpf -e trace=execve -e signal=none -A -o "$trace" "$@"; }

echo "== build (warnings as errors)"
BUILD_DIR=build traced bash scripts/build.sh
(cd build && traced ctest --output-on-failure -j"$(nproc)")

echo "== Python package"
traced bash scripts/test-python.sh

echo "== ASan + UBSan"
# the build runs the instrumented tensorplan (man page, completions) under strace, where
# LeakSanitizer cannot run: leaks are checked by the CTest run below, not traced
ASAN_OPTIONS=detect_leaks=0 BUILD_DIR=build-asan traced bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang -DTP_SANITIZE=address,undefined -DTP_BUILD_BENCH=OFF
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$(nproc)" -LE slow)

echo "== TSan (threaded tests)"
BUILD_DIR=build-tsan traced bash scripts/build.sh -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DTP_SANITIZE=thread -DTP_BUILD_BENCH=OFF
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -L threads)

echo "== clang-format"
traced bash scripts/check-format.sh

echo "== tools the tests ran"
/usr/bin/python3 scripts/check-tools.py "$trace"
echo "all test stages passed"
