#!/usr/bin/env bash
# The man page and shell completions generated from the CLI's option tables
# (tensorplan --help-man, --completions bash|zsh; the build writes tensorplan.1,
# tensorplan.bash and _tensorplan next to the binary): the build's files are
# current; the man page has its sections, every option of every command's --help in
# that command's subsection, every environment variable of tensorplan/env.h, and
# formats without a warning (groff, from groff-base); the bash script parses, registers
# `complete -F _tensorplan tensorplan`, completes commands, options, choices and
# files; the zsh script parses when zsh is installed (not a dependency).
# usage: test_manpage.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
BUILD=$(dirname "$TP")
pass=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fails=$((fails + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/  /'; }

"$TP" --help-man >"$tmp/tensorplan.1" && ok "--help-man" || bad "--help-man"
"$TP" --completions bash >"$tmp/tensorplan.bash" && ok "--completions bash" || bad "--completions bash"
"$TP" --completions zsh >"$tmp/_tensorplan" && ok "--completions zsh" || bad "--completions zsh"
"$TP" --completions fish >/dev/null 2>&1
[ $? -eq 2 ] && ok "--completions fish: usage error" || bad "--completions fish: usage error"
for f in tensorplan.1 tensorplan.bash _tensorplan; do
    if [ ! -f "$BUILD/$f" ]; then bad "the build wrote $f" "no $BUILD/$f"
    elif cmp -s "$BUILD/$f" "$tmp/$f"; then ok "the build's $f is current"
    else bad "the build's $f is current" "$(diff "$BUILD/$f" "$tmp/$f" | head -5)"; fi
done

# --- the man page
man=$tmp/tensorplan.1
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
    grep -qx "\.SH $s" "$man" && ok "man: section $s" || bad "man: section $s"
done
mapfile -t cmds < <("$TP" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ "${#cmds[@]}" -ge 5 ] && ok "${#cmds[@]} commands" || bad "list the commands" "${cmds[*]}"
for c in "${cmds[@]}"; do
    # the command's subsection: from its .SS line to the next .SS or .SH
    awk -v c="$c" '$0 == ".SS \"tensorplan " c "\"" {on=1; next} on && /^\.S[SH] /{on=0} on' "$man" >"$tmp/sub"
    "$TP" "$c" --help >"$tmp/help"
    mapfile -t opts < <(grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' "$tmp/help" | grep -oE -- '--[a-z0-9-]+')
    missing=""
    for o in "${opts[@]}"; do
        grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')\\fR" "$tmp/sub" || missing="$missing $o"
    done
    if [ "${#opts[@]}" -ge 3 ] && [ -z "$missing" ]; then ok "man: tensorplan $c lists its ${#opts[@]} options"
    else bad "man: tensorplan $c lists its options" "missing:$missing (of ${#opts[@]})"; fi
    grep -qE "^\.B $c$" "$man" && ok "man: $c in SYNOPSIS" || bad "man: $c in SYNOPSIS"
done
missing=""
for v in $(sed -n 's/^#define TP_ENV_[A-Z_]* "\([A-Z_]*\)"$/\1/p' include/tensorplan/env.h) XDG_CACHE_HOME; do
    grep -qF -- "$(printf '%s' "$v" | sed 's/-/\\-/g')" "$man" || missing="$missing $v"
done
[ -z "$missing" ] && ok "man: every environment variable of env.h" || bad "man: environment variables" "missing:$missing"
if command -v groff >/dev/null; then
    groff -man -Tascii -ww "$man" >"$tmp/man.txt" 2>"$tmp/groff.err"
    if [ -s "$tmp/groff.err" ]; then bad "groff: no warnings" "$(head -5 "$tmp/groff.err")"
    else ok "groff formats it without a warning ($(wc -l <"$tmp/man.txt") lines)"; fi
else
    bad "groff formats the man page" "groff is not installed (scripts/deps-test.sh installs groff-base)"
fi

# --- bash
bash -n "$tmp/tensorplan.bash" && ok "bash -n" || bad "bash -n"
comp() { # comp WORDS...: what the completion offers for the last word
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tensorplan; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$tmp/tensorplan.bash" "$@"
}
out=$(bash -c 'source "$1"; complete -p tensorplan' _ "$tmp/tensorplan.bash")
[[ $out == *"-F _tensorplan tensorplan"* ]] && ok "complete -p tensorplan" || bad "complete -p tensorplan" "$out"
[ "$(comp tensorplan es)" = estimate ] && ok "tensorplan es -> estimate" || bad "tensorplan es -> estimate" "$(comp tensorplan es)"
[ "$(comp tensorplan plan --al | sort | tr '\n' ' ')" = "--algo --align " ] && ok "plan --al -> --algo --align" || bad "plan --al" "$(comp tensorplan plan --al)"
[ "$(comp tensorplan plan --algo b)" = bestfit ] && ok "plan --algo b -> bestfit" || bad "plan --algo b" "$(comp tensorplan plan --algo b)"
[ "$(comp tensorplan estimate --demo --runtime o)" = onnxruntime ] && ok "--runtime o -> onnxruntime" || bad "--runtime o"
touch "$tmp/dims-a.json"
[ "$(comp tensorplan estimate --dims "$tmp/dims-")" = "$tmp/dims-a.json" ] && ok "--dims completes a file" || bad "--dims completes a file" "$(comp tensorplan estimate --dims "$tmp/dims-")"
[ -z "$(comp tensorplan estimate --budget 1)" ] && ok "--budget completes nothing" || bad "--budget completes nothing"
for c in "${cmds[@]}"; do
    "$TP" "$c" --help >"$tmp/help"
    want=$(grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' "$tmp/help" | grep -oE -- '--[a-z0-9-]+' | sort | tr '\n' ' ')
    got=$(comp tensorplan "$c" -- | sort | tr '\n' ' ')
    [ "$want" = "$got" ] && ok "bash: $c completes every option of its --help" || bad "bash: $c options" "help: $want"$'\n'"completion: $got"
done

# --- zsh (only when installed)
if command -v zsh >/dev/null; then
    zsh -n "$tmp/_tensorplan" && ok "zsh -n" || bad "zsh -n"
else
    echo "skip zsh (not installed)"
fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
