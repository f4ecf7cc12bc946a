#!/usr/bin/env bash
# Per-device truth of `estimate MODEL.gguf --devices ...` against llama.cpp over RPC devices (a
# slice; the full matrix is bench/multi_device_truth.sh). scripts/fixtures-multi.sh builds
# ggml-rpc-server, llama-fit-params and scripts/multi_probe.cpp from the llama.cpp sources of
# scripts/fixtures-llm.sh; scripts/multi_truth.py starts two or three rpc servers on 127.0.0.1
# (stopped on exit) and compares each device's model and KV bytes (must be equal) and compute.
# usage: test_multi_device_truth.sh /path/to/tensorplan
set -u
TP="${1:?usage: $0 /path/to/tensorplan}"
cd "$(dirname "$0")/../.."
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "skip: the llama.cpp fixtures (node-llama-cpp) are set up for linux-x64 only"
    echo "0 passed, 0 failed"
    exit 0
fi
if ! bash scripts/fixtures-llm.sh || ! bash scripts/fixtures-multi.sh; then
    echo "skip: llama.cpp with RPC is not built and could not be built (scripts/fixtures-multi.sh)"
    echo "0 passed, 0 failed"
    exit 0
fi
if /usr/bin/python3 scripts/multi_truth.py "$TP" .fixtures/multi \
    --models llama_gqa_q8_0,mixtral_moe_q8_0,deepseek2_mla_q8_0,lfm2_hybrid_q8_0 \
    --cases "rpc=2 ts=1,1;rpc=2 ts=3,1 ngl=2;rpc=2 ts=1,1 nkvo;rpc=3 ts=1,1,1;rpc=2 ts=1,1 ot;rpc=2 ts=1,1 ncpumoe=1" \
    --ctx 4096 --strict-compute; then
    echo "1 passed, 0 failed"
else
    echo "FAIL llama.cpp multi-device truth (table above)"
    echo "0 passed, 1 failed"
    exit 1
fi
