#!/usr/bin/env bash
# tensorplan as its users consume it. Installs the build into a temporary prefix, moves
# the tree (every installed path must be relative), then builds and runs, each printing
# the same plan of tests/downstream/plan_mlp.c:
#   (a) a CMake project with find_package(tensorplan) (shared, static, the imported CLI;
#       asking for version 1.0 fails: SameMajorVersion),
#   (b) a Makefile project with pkg-config (examples/quickstart.c and plan_mlp.c),
#   (c) the amalgamation (scripts/amalgamate.py) with a plain cc -std=c11 -Werror,
#   (d) a CMake project that builds tensorplan from source with FetchContent,
#   (e) the Debian package (cpack -G DEB): its file list and Depends, then extracted
#       into a temporary root (dpkg-deb -x) and used through pkg-config and CMake.
# Skipped in sanitizer builds (a downstream project links an ordinary build).
# usage: test_downstream.sh /path/to/tensorplan (the build directory is its directory)
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
BUILD=$(cd "$(dirname "$TP")" && pwd)
SRC=$PWD
pass=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | tail -15 | sed 's/^/  /'; }
# run NAME CMD...: run a step quietly, its output shown when it fails
run() { local name=$1; shift; if "$@" >"$tmp/log" 2>&1; then ok "$name"; else bad "$name" "$(cat "$tmp/log")"; return 1; fi; }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }

if [ -n "$(cache TP_SANITIZE)" ]; then
    echo "skip: sanitizer build (downstream projects link an ordinary build)"
    echo "0 passed, 0 failed"
    exit 0
fi
CC=$(cache CMAKE_C_COMPILER)
export CC=${CC:-cc}
gen=(-G "$(cache CMAKE_GENERATOR)")
# the line every build of plan_mlp.c must print: the version of the headers, same plan
ver=$(sed -n 's/^#define TP_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' include/tensorplan/version.h |
    paste -sd.)
want_re="^tensorplan $ver: arena [0-9]+ bytes, lower bound [0-9]+ bytes\$"
first=""
# plan_check NAME CMD...: CMD prints the plan line, identical for every build
plan_check() {
    local name=$1 out; shift
    out=$("$@" 2>&1)
    if ! grep -Eq "$want_re" <<<"$out"; then bad "$name prints the plan" "$out"; return; fi
    [ -z "$first" ] && first=$out
    [ "$out" = "$first" ] && ok "$name: $out" || bad "$name prints the same plan" "$out vs $first"
}

# Install, then move the tree: nothing installed may name the install prefix.
run "cmake --install into a temporary prefix" cmake --install "$BUILD" --prefix "$tmp/stage"
mv "$tmp/stage" "$tmp/moved"
P=$tmp/moved
baked=$(grep -rl "$tmp/stage" "$P/lib" "$P/include" 2>/dev/null)
[ -z "$baked" ] && ok "no installed file names the install prefix" || bad "relocatable files" "$baked"
for f in lib/libtensorplan.so lib/libtensorplan.a lib/pkgconfig/tensorplan.pc bin/tensorplan \
    lib/cmake/tensorplan/tensorplanConfig.cmake lib/cmake/tensorplan/tensorplanConfigVersion.cmake \
    include/tensorplan.h include/tensorplan/version.h include/tensorplan/export.h; do
    [ -e "$P/$f" ] || bad "installed $f"
done
ok "installed libraries, headers, .pc, CMake package and CLI"

# (a) find_package from the moved tree
if run "(a) find_package(tensorplan): configure" cmake "${gen[@]}" -S tests/downstream/cmake \
    -B "$tmp/a" -DCMAKE_PREFIX_PATH="$P" &&
    run "(a) build against tensorplan::tensorplan and ::tensorplan_static" cmake --build "$tmp/a"; then
    plan_check "(a) shared" "$tmp/a/plan_shared"
    plan_check "(a) static" "$tmp/a/plan_static"
    lib=$(ldd "$tmp/a/plan_shared" | awk '/libtensorplan/ {print $3}')
    [ "$lib" = "$P/lib/libtensorplan.so.${ver%%.*}" ] && ok "(a) shared: loads the moved library" ||
        bad "(a) shared loads $P/lib/libtensorplan.so.${ver%%.*}" "got '$lib'"
    cli=$(cat "$tmp/a/cli_path.txt")
    [ "$cli" = "$P/bin/tensorplan" ] && [ "$("$cli" version)" = "tensorplan $ver" ] &&
        ok "(a) tensorplan::cli is the installed CLI" || bad "(a) tensorplan::cli" "$cli"
fi
if cmake -S tests/downstream/cmake -B "$tmp/a1" -DCMAKE_PREFIX_PATH="$P" -DTP_WANT_VERSION=1.0 \
    >"$tmp/log" 2>&1; then
    bad "(a) find_package(tensorplan 1.0) refuses $ver"
else
    grep -q "tensorplanConfig.cmake, version: $ver" "$tmp/log" &&
        ok "(a) find_package(tensorplan 1.0) refuses $ver" || bad "(a) version refusal" "$(cat "$tmp/log")"
fi

# (b) pkg-config + make
export PKG_CONFIG_PATH=$P/lib/pkgconfig
cflags=$(pkg-config --cflags tensorplan)
[ "$(cd "$(pkg-config --variable=includedir tensorplan)" && pwd)" = "$P/include" ] &&
    ok "(b) pkg-config: includedir is the moved tree ($cflags)" || bad "(b) pkg-config includedir" "$cflags"
mkdir -p "$tmp/b"
if run "(b) make with pkg-config --cflags --libs tensorplan" make -C "$tmp/b" \
    -f "$SRC/tests/downstream/make/Makefile" SRC="$SRC"; then
    plan_check "(b) plan_mlp" env LD_LIBRARY_PATH="$P/lib" "$tmp/b/plan_mlp"
    out=$(LD_LIBRARY_PATH="$P/lib" "$tmp/b/quickstart")
    grep -q "^weights 16777216, activations [0-9]*, peak [0-9]* bytes$" <<<"$out" &&
        ok "(b) examples/quickstart.c runs" || bad "(b) quickstart" "$out"
fi
unset PKG_CONFIG_PATH

# (c) the amalgamation with a plain cc
if run "(c) scripts/amalgamate.py" /usr/bin/python3 scripts/amalgamate.py "$tmp/c" &&
    run "(c) cc -std=c11 -O2 -Werror (the project's warnings) -c tensorplan.c" \
        "$CC" -std=c11 -O2 -Werror -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wformat=2 -c "$tmp/c/tensorplan.c" -o "$tmp/c/tensorplan.o" &&
    run "(c) link plan_mlp.c with tensorplan.o" "$CC" -std=c11 -Wall -Wextra -Werror -I"$tmp/c" \
        tests/downstream/plan_mlp.c "$tmp/c/tensorplan.o" -lm -ldl -lpthread -o "$tmp/c/plan_mlp"; then
    plan_check "(c) amalgamation" "$tmp/c/plan_mlp"
    nglobal=$(nm --defined-only "$tmp/c/tensorplan.o" | awk '$2 ~ /^[TDBR]$/ && $3 !~ /^tp_/' | wc -l)
    [ "$nglobal" -eq 0 ] && ok "(c) every global symbol of tensorplan.o starts with tp_" ||
        bad "(c) global symbols outside tp_" "$(nm --defined-only "$tmp/c/tensorplan.o" |
            awk '$2 ~ /^[TDBR]$/ && $3 !~ /^tp_/')"
fi

# (d) FetchContent from the source tree (tests and install rules off as a subproject)
if run "(d) FetchContent: configure" cmake "${gen[@]}" -S tests/downstream/fetchcontent -B "$tmp/d" \
    -DTP_SOURCE_DIR="$SRC" -DCMAKE_BUILD_TYPE=Debug &&
    run "(d) FetchContent: build plan_shared (the library only)" \
        cmake --build "$tmp/d" -j"$(nproc)" --target plan_shared; then
    plan_check "(d) FetchContent" "$tmp/d/plan_shared"
    [ ! -d "$tmp/d/_deps/tensorplan-build/tests" ] && ok "(d) no tests built as a subproject" ||
        bad "(d) tests built as a subproject"
    [ "$(cat "$tmp/d/cli_path.txt")" = "$tmp/d/_deps/tensorplan-build/tensorplan" ] &&
        ok "(d) tensorplan::cli names the subproject's CLI" || bad "(d) tensorplan::cli" "$(cat "$tmp/d/cli_path.txt")"
fi

# (e) the Debian package
if run "(e) cpack -G DEB" cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$tmp/e"; then
    deb=$(ls "$tmp"/e/tensorplan_"$ver"_*.deb 2>/dev/null)
    [ -f "$deb" ] && ok "(e) $(basename "$deb")" || bad "(e) tensorplan_${ver}_ARCH.deb" "$(ls "$tmp/e")"
    dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/e/files"
    for f in ./usr/bin/tensorplan ./usr/lib/libtensorplan.so.0 ./usr/lib/libtensorplan.a \
        ./usr/include/tensorplan.h ./usr/lib/pkgconfig/tensorplan.pc \
        ./usr/lib/cmake/tensorplan/tensorplanConfig.cmake ./usr/share/man/man1/tensorplan.1 \
        ./usr/share/bash-completion/completions/tensorplan ./usr/share/zsh/site-functions/_tensorplan; do
        grep -qx -- "$f" "$tmp/e/files" || bad "(e) the package holds $f"
    done
    ok "(e) dpkg-deb -c: CLI, libraries, headers, .pc, CMake package, man page, completions"
    depends=$(dpkg-deb -f "$deb" Depends)
    grep -Eq '^libc6 \(>= [0-9.]+\)' <<<"$depends" && ok "(e) Depends: $depends" ||
        bad "(e) Depends names libc6 with a version" "$depends"
    dpkg-deb -I "$deb" shlibs | grep -q "^libtensorplan ${ver%%.*} tensorplan" &&
        ok "(e) shlibs file for libtensorplan.so.${ver%%.*}" || bad "(e) shlibs file"
    run "(e) dpkg-deb -x into a temporary root" dpkg-deb -x "$deb" "$tmp/root"
    R=$tmp/root/usr
    [ "$(LD_LIBRARY_PATH="$R/lib" "$R/bin/tensorplan" version)" = "tensorplan $ver" ] &&
        ok "(e) the packaged CLI runs" || bad "(e) the packaged CLI runs"
    if PKG_CONFIG_PATH=$R/lib/pkgconfig run "(e) cc with pkg-config from the package" \
        "$CC" -std=c11 -Wall -Wextra -Werror tests/downstream/plan_mlp.c \
        $(PKG_CONFIG_PATH=$R/lib/pkgconfig pkg-config --cflags --libs tensorplan) -o "$tmp/e/plan_mlp"; then
        plan_check "(e) package, shared" env LD_LIBRARY_PATH="$R/lib" "$tmp/e/plan_mlp"
    fi
    if run "(e) find_package from the package: configure" cmake "${gen[@]}" -S tests/downstream/cmake \
        -B "$tmp/e/cm" -DCMAKE_PREFIX_PATH="$R" &&
        run "(e) find_package from the package: build" cmake --build "$tmp/e/cm"; then
        plan_check "(e) package, static (stripped archive still links)" "$tmp/e/cm/plan_static"
    fi
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
