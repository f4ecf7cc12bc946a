#!/usr/bin/env bash
# Install the Debian packages the build and the tests need (idempotent; quiet
# when everything is present). Run as root on a fresh Debian 12 machine.
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in build-essential cmake clang libclang-rt-dev pkg-config libopenblas0-pthread chromium python3-jsonschema ${TP_EXTRA_DEPS:-}; do
  have "$p" || need+=("$p")
done
if ((${#need[@]})); then
  echo "deps: installing ${need[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
