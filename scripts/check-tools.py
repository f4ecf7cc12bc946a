#!/usr/bin/python3
"""Check that every program the tests ran comes from a package our deps scripts install.

usage: check-tools.py TRACE [TRACE...]

TRACE is an `strace -f -e trace=execve` log of test stages (scripts/test.sh writes one).
Every successful execve is resolved to a file. Files inside the repository or under the
temporary directory are ours (built binaries, test scripts). Every other file must belong
to a Debian package that a fresh Debian 12 machine is guaranteed to have, or that
scripts/deps-build.sh / scripts/deps-test.sh install (directly or as a dependency):

  baseline  = Essential and Priority: required packages (every Debian install, even
              debootstrap's minbase, has them) + build-essential, cmake, git, nodejs,
              npm (what the README promises a fresh machine has)
  installed = packages listed by `deps-build.sh --list` and `deps-test.sh --list`
  allowed   = the dependency closure (Depends/PreDepends) of baseline + installed

A program from no package (e.g. a pyenv shim, something under /usr/local or $HOME) or
from a package outside `allowed` fails the check: on a fresh machine that command
would be missing, which is how the last CI gap (clang-format) happened.
Exit 0 when all is well, 1 with one line per offending program otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BASELINE = ["build-essential", "cmake", "git", "nodejs", "npm"]
# Programs that a tool only probes for and does without on a machine that lacks them
# (the run works the same): pip asks `rustc --version` and `lsb_release` for its
# user-agent string even with --no-index.
OPTIONAL_PROBES = {
    "rustc": "pip's user agent",
    "lsb_release": "pip's user agent (distro)",
    "zsh": "tests/cli/test_manpage.sh parses the zsh completion when zsh is installed",
}
EXEC_RE = re.compile(r'^(?:\[pid\s+)?\d*\]?\s*execve\("((?:[^"\\]|\\.)*)",.*\)\s+=\s+0\s*$')


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout


def executed_files(traces):
    seen = set()
    for t in traces:
        with open(t, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = EXEC_RE.match(line.strip())
                if m:
                    seen.add(m.group(1).encode().decode("unicode_escape"))
    return seen


def ours(path):
    tmp = os.path.realpath(tempfile.gettempdir())
    for base in (ROOT, tmp, "/tmp", "/dev/shm"):
        if path == base or path.startswith(base + os.sep):
            return True
    return False


def twins(path):
    """path and its merged-/usr twin (dpkg may record either /bin/x or /usr/bin/x)."""
    return [path, path[4:] if path.startswith("/usr/") else "/usr" + path]


def owners(paths):
    """{path: Debian package} for the paths dpkg knows (one dpkg-query call)."""
    found = {}
    queries = sorted({c for p in paths for c in twins(p)})
    if not queries:
        return found
    for line in run(["dpkg-query", "-S"] + queries).splitlines():
        pkgs, _, p = line.partition(": ")
        found[p.strip()] = pkgs.split(",")[0].split(":")[0].strip()
    return found


def deps_list(script):
    out = subprocess.run(["bash", os.path.join(ROOT, "scripts", script), "--list"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def closure(pkgs):
    out = run(["apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
               "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
               "--no-enhances"] + pkgs)
    names = set(pkgs)
    for line in out.splitlines():
        line = line.strip()
        if ":" in line:
            line = line.split(":", 1)[1].strip()
        line = line.strip("<>| ")
        if line:
            names.add(line.split(":")[0])
    return names


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    essential = [l.split()[0] for l in run(
        ["dpkg-query", "-W", "-f=${Package} ${Essential} ${Priority}\\n"]).splitlines()
        if " yes " in l + " " or l.endswith(" required")]
    listed = deps_list("deps-build.sh") + deps_list("deps-test.sh")
    allowed = closure(sorted(set(essential + BASELINE + listed)))
    files = executed_files(argv[1:])
    foreign = [f for f in sorted(files) if not (ours(f) or ours(os.path.realpath(f)))
               and os.path.basename(f) not in OPTIONAL_PROBES]
    known = owners(foreign + [os.path.realpath(f) for f in foreign])
    bad = []
    checked = {}
    for f in foreign:
        pkg = next((known[c] for p in (f, os.path.realpath(f)) for c in twins(p)
                    if c in known), None)
        if pkg is None:
            bad.append(f"{f}: belongs to no Debian package (installed by hand?): "
                       "install it from a script (scripts/deps-test.sh) or call the Debian one")
        elif pkg not in allowed:
            bad.append(f"{f}: from package {pkg}, which neither a fresh machine nor "
                       "scripts/deps-build.sh / scripts/deps-test.sh install")
        else:
            checked.setdefault(pkg, []).append(os.path.basename(f))
    print(f"check-tools: {len(files)} programs run; {sum(map(len, checked.values()))} "
          f"from {len(checked)} packages, all installed by the deps scripts or present on a "
          f"fresh machine; {len(bad)} problems")
    for b in bad:
        print("check-tools: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
