# shellcheck shell=bash
# deps_install PKG...: apt-get install the Debian packages that are not installed yet
# (idempotent, quiet when everything is present; waits for another apt-get to finish).
# Sourced by scripts/deps-build.sh and scripts/deps-test.sh. With DEPS_LIST_ONLY=1 (the
# scripts' --list option) it prints the package names instead, one per line, for
# scripts/check-tools.py.
deps_have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
deps_install() {
  local need=() p sudo=""
  if [ "${DEPS_LIST_ONLY:-0}" = 1 ]; then
    printf '%s\n' "$@"
    return 0
  fi
  for p in "$@"; do deps_have "$p" || need+=("$p"); done
  ((${#need[@]})) || return 0
  while pgrep -x apt-get >/dev/null || pgrep -x dpkg >/dev/null; do
    echo "deps: waiting for a running apt-get/dpkg" >&2
    sleep 5
  done
  need=()
  for p in "$@"; do deps_have "$p" || need+=("$p"); done
  ((${#need[@]})) || return 0
  echo "deps: installing ${need[*]}" >&2
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${need[@]}" >/dev/null
}
