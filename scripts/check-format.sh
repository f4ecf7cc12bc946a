#!/usr/bin/env bash
# Fail when a C source or header differs from .clang-format's output.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || {
  echo "format: clang-format is not installed (apt-get install clang-format; scripts/deps-test.sh installs it)" >&2
  exit 1
}
bad=0
while IFS= read -r f; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "format: $f (run: clang-format -i $f)" >&2
    bad=1
  fi
done < <(git ls-files '*.c' '*.h' 2>/dev/null || find src include tools tests bench fuzz examples -name '*.[ch]')
exit $bad
