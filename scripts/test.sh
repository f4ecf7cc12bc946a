#!/usr/bin/env bash
# Build and run every test: a -Werror build with CTest, an ASan+UBSan build of
# the tests, and a TSan build of the threaded tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps-test.sh
[ -x scripts/fixtures.sh ] && bash scripts/fixtures.sh

echo "== build (warnings as errors)"
BUILD_DIR=build bash scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")

echo "== ASan + UBSan"
BUILD_DIR=build-asan bash scripts/build.sh -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
  -DTP_SANITIZE=address,undefined -DTP_BUILD_BENCH=OFF
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$(nproc)" -LE slow)

echo "== TSan (threaded tests)"
BUILD_DIR=build-tsan bash scripts/build.sh -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DTP_SANITIZE=thread -DTP_BUILD_BENCH=OFF
(cd build-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -L threads)

echo "== clang-format"
bash scripts/check-format.sh
echo "all test stages passed"
