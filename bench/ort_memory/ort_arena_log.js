#!/usr/bin/env node
// onnxruntime's own log of its CPU arena for one model (default level "all", 2 threads, two
// runs): every request that extends the BFC arena (bfc_arena.cc logs "Extending BFCArena for
// Cpu ... num_bytes: N" and "Extended allocation by R bytes" at verbose level), split by phase
// (creation, run 1, run 2). Run 2's request is the memory-pattern block whenever it fits no free
// chunk: compare it with bench_ort_trace's "memory-pattern block" (docs/runtime.md).
// Usage: node bench/ort_memory/ort_arena_log.js MODEL.onnx INPUTS.json
// Prints one JSON line: {"model", "create": [[num_bytes, region_bytes], ...], "run1": [...], "run2": [...]}.
// NODE_PATH must reach onnxruntime-node (.fixtures/ort/node_modules).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');
const { feeds: makeFeeds } = require('../../scripts/ort_feeds.js');

// onnxruntime's native code writes its log to the process's stderr, which JavaScript cannot read
// in-process: the script runs itself again as a child with stderr piped.
if (process.argv[4] !== '--child') {
  const { spawnSync } = require('child_process');
  const r = spawnSync(process.execPath, [__filename, process.argv[2], process.argv[3], '--child'],
                      { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) {
    console.error('ort_arena_log: ' + (r.stderr || '').split('\n').slice(-3).join(' '));
    process.exit(1);
  }
  const out = { model: process.argv[2], create: [], run1: [], run2: [] };
  let phase = 'create', pending = null;
  for (const line of (r.stdout + '\n' + r.stderr).split('\n')) {
    if (line.startsWith('=== RUN1')) phase = 'run1';
    else if (line.startsWith('=== RUN2')) phase = 'run2';
    let m = /Extending BFCArena for Cpu\..*num_bytes: (\d+)/.exec(line);
    if (m) pending = Number(m[1]);
    m = /Extended allocation by (\d+) bytes/.exec(line);
    if (m && pending !== null) {
      out[phase].push([pending, Number(m[1])]);
      pending = null;
    }
  }
  console.log(JSON.stringify(out));
} else {
  (async () => {
    const [model, inputs] = process.argv.slice(2);
    ort.env.logLevel = 'verbose';
    const s = await ort.InferenceSession.create(model, {
      executionProviders: ['cpu'], intraOpNumThreads: 2, interOpNumThreads: 1,
      graphOptimizationLevel: 'all', logSeverityLevel: 0 });
    const f = makeFeeds(ort, JSON.parse(fs.readFileSync(inputs, 'utf8')));
    console.error('=== RUN1');
    await s.run(f);
    console.error('=== RUN2');
    await s.run(f);
  })().catch((e) => { console.error('ort_arena_log: ' + e.message); process.exit(1); });
}
