#!/usr/bin/env bash
# scripts/check-tools.py, the guard that every program the tests run is installed by
# the deps scripts: it passes a trace of programs from listed packages and fails, with
# a line naming the program, a trace with a program from no package or from a package
# no deps script installs.
# usage: test_check_tools.sh /path/to/tensorplan (unused; CTest passes it)
set -u
PY=/usr/bin/python3
pass=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; }
line() { printf '%s  execve("%s", ["x"], 0x0 /* 1 vars */) = 0\n' 100 "$1"; }

# programs from essential packages, the baseline and the deps lists, plus our own build
{ line /usr/bin/ls; line /usr/bin/cmake; line /usr/bin/python3; line "$PWD/build/tensorplan"
  printf '101  execve("/usr/bin/nope", ["nope"], 0x0 /* 1 vars */) = -1 ENOENT (No such file or directory)\n'
} >"$tmp/good.log"
if "$PY" scripts/check-tools.py "$tmp/good.log" >"$tmp/out" 2>&1; then ok "listed programs pass"; else
  bad "listed programs pass: $(cat "$tmp/out")"; fi

# a program that belongs to no package (what a hand install or a pyenv shim looks like)
fake=/usr/local/bin/tp-check-tools-fake-$$
{ line /usr/bin/ls; line "$fake"; } >"$tmp/bad.log"
if "$PY" scripts/check-tools.py "$tmp/bad.log" >"$tmp/out" 2>&1; then bad "unowned program fails"; else
  grep -q "tp-check-tools-fake-$$: belongs to no Debian package" "$tmp/out" &&
    ok "unowned program fails, named" || bad "unowned program named: $(cat "$tmp/out")"; fi

# a program from an installed package that no deps script lists (dpkg itself knows it)
unlisted=""
for cand in /usr/bin/valgrind /usr/bin/gdb /usr/bin/cppcheck /usr/bin/perf /usr/bin/strings; do
  [ -x "$cand" ] || continue
  pkg=$(dpkg-query -S "$cand" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || continue
  if ! { bash scripts/deps-build.sh --list; bash scripts/deps-test.sh --list; } | grep -qx "$pkg"; then
    unlisted=$cand; break
  fi
done
if [ -n "$unlisted" ]; then
  line "$unlisted" >"$tmp/unlisted.log"
  if "$PY" scripts/check-tools.py "$tmp/unlisted.log" >"$tmp/out" 2>&1; then
    # allowed only when it comes in as a dependency of a listed package
    grep -q "0 problems" "$tmp/out" && ok "$unlisted is a dependency of a listed package (allowed)" ||
      bad "unlisted program: $(cat "$tmp/out")"
  else
    grep -q "from package" "$tmp/out" && ok "unlisted package fails, named ($unlisted)" ||
      bad "unlisted package named: $(cat "$tmp/out")"
  fi
else
  echo "note: no installed-but-unlisted program found to probe on this machine"
fi
echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
