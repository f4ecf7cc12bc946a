#!/usr/bin/env bash
# The C example in README.md compiles against the built library and runs:
# the code block after the line "<!-- example: quickstart -->" must equal
# examples/quickstart.c, which is compiled, linked and run here.
set -euo pipefail
bin="$1"
build_dir="$(cd "$(dirname "$bin")" && pwd)"
root="$(pwd)"
fails=0 passes=0
check() { if "$@"; then passes=$((passes + 1)); else echo "FAIL: $*"; fails=$((fails + 1)); fi; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
awk '/<!-- example: quickstart -->/{f=1; next} f && /^```c/{g=1; next} g && /^```/{exit} g{print}' \
  README.md > "$tmp/readme.c"
check diff -u examples/quickstart.c "$tmp/readme.c"
# Same compiler and sanitizers as the build under test.
cc_bin="$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
san="$(sed -n 's/^TP_SANITIZE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
flags=()
[ -n "$san" ] && flags+=("-fsanitize=$san")
check "${cc_bin:-cc}" -std=c11 -Wall -Wextra -Werror "${flags[@]}" -I"$root/include" "$tmp/readme.c" \
  "$build_dir/libtensorplan.a" -lm -ldl -lpthread -o "$tmp/quickstart"
out="$("$tmp/quickstart")"
echo "$out"
check grep -q "^weights 16777216, activations [0-9]*, peak [0-9]* bytes$" <<<"$out"
check grep -q "exceeds budget 16.0 MiB" <<<"$out"
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
