#!/usr/bin/env bash
# The shared library's dynamic symbol table is the public API, exactly: every function
# declared with TP_API in include/tensorplan/*.h is exported, and nothing else is (the
# library is compiled with -fvisibility=hidden; internal helpers use the tp__ prefix or
# are static). A helper that loses `static`, or a public declaration without TP_API,
# fails here with its name.
# usage: test_exported_symbols.sh /path/to/tensorplan (the .so is next to it)
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
BUILD=$(dirname "$TP")
pass=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/  /'; }

so="$BUILD/libtensorplan.so"
a="$BUILD/libtensorplan.a"
# Declared: the name before the first '(' of every TP_API declaration (export.h defines
# the macro and declares nothing).
for h in include/tensorplan/*.h; do [ "$(basename "$h")" = export.h ] || cat "$h"; done |
    tr '\n' ' ' | grep -o 'TP_API[^;(]*(' | sed 's/ *($//; s/.*[ *]//' | sort -u >"$tmp/declared"
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u >"$tmp/exported"
nd=$(wc -l <"$tmp/declared")
[ "$nd" -gt 100 ] && ok "$nd TP_API declarations found" || bad "TP_API declarations found" "only $nd"
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
[ -z "$extra" ] && ok "no symbol exported that no header declares with TP_API" ||
    bad "exported but not declared with TP_API ($(printf '%s\n' "$extra" | wc -l))" "$extra"
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
[ -z "$missing" ] && ok "every TP_API declaration is exported" ||
    bad "declared with TP_API but not exported" "$missing"
# The check can see a leak: internal tp__ functions exist in the static library (same
# objects) and must be absent from the shared one.
ninternal=$(nm --defined-only "$a" 2>/dev/null | awk '$2 == "T" && $3 ~ /^tp__/' | wc -l)
[ "$ninternal" -gt 0 ] && ok "$ninternal internal tp__ functions in the static library" ||
    bad "internal tp__ functions in the static library" "none found: is the check blind?"
grep -q '^tp__' "$tmp/exported" && bad "no tp__ symbol exported" || ok "no tp__ symbol exported"
soname=$(objdump -p "$so" | awk '$1 == "SONAME" {print $2}')
major=$(sed -n 's/^#define TP_VERSION_MAJOR \([0-9]*\).*/\1/p' include/tensorplan/version.h)
[ "$soname" = "libtensorplan.so.$major" ] && ok "SONAME $soname" ||
    bad "SONAME is libtensorplan.so.$major" "got '$soname'"

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
