#!/usr/bin/env bash
# Mutated ONNX, GGUF, safetensors and CSV inputs (tests/cli/mutate_inputs.py): every mutant
# ends in exit 0-3 with a one-line tensorplan message, within 20 s and a 4 GiB address space.
# Failing mutants stay in a temporary folder named in the output.
# usage: test_mutations.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
out=$(mktemp -d)
/usr/bin/python3 "$(dirname "$0")/mutate_inputs.py" "$TP" "$out" 6
rc=$?
[ "$rc" = 0 ] && rm -rf "$out"
exit "$rc"
