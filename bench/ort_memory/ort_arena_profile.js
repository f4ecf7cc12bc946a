#!/usr/bin/env node
// onnxruntime's own arena trace for one model: runs it twice (default level "all", 2 threads,
// profiler on) and prints, per kernel of each run, the bytes the arena has handed out
// (mem_bytes_requested_in_use, sampled after the kernel, before its inputs are released), the
// arena's regions (mem_arena_held) and the output bytes; then run 1's peak and run 2's bytes in
// use at its first kernel (the memory-pattern block plus what the session holds since creation:
// the pre-packed weights, = bytes in use at run 1's last kernel minus the graph outputs).
// Usage: node bench/ort_memory/ort_arena_profile.js MODEL.onnx INPUTS.json [--nodes]
// NODE_PATH must reach onnxruntime-node (.fixtures/ort/node_modules).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');
const { feeds: makeFeeds } = require('../../scripts/ort_feeds.js');

(async () => {
  const [model, inputs, flag] = process.argv.slice(2);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-arena-'));
  const s = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], intraOpNumThreads: 2, interOpNumThreads: 1,
    graphOptimizationLevel: 'all', enableProfiling: true, profileFilePrefix: path.join(dir, 'p'),
  });
  const f = makeFeeds(ort, JSON.parse(fs.readFileSync(inputs, 'utf8')));
  await s.run(f);
  await s.run(f);
  s.endProfiling();
  const file = fs.readdirSync(dir).find((x) => x.endsWith('.json'));
  const prof = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, {recursive: true, force: true});
  const ev = prof.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
  const n = ev.length / 2, M = 1 << 20;
  const use = (e) => Number(e.args.mem_bytes_requested_in_use || 0);
  if (flag === '--nodes')
    ev.forEach((e, i) => console.log([i < n ? 1 : 2, e.name.slice(0, -12), e.args.op_name,
      (use(e) / M).toFixed(2), (Number(e.args.mem_arena_held || 0) / M).toFixed(2),
      (Number(e.args.output_size || 0) / M).toFixed(2)].join('\t')));
  const peak1 = Math.max(...ev.slice(0, n).map(use));
  console.log(JSON.stringify({model, kernels_per_run: n, run1_peak_in_use_mib: +(peak1 / M).toFixed(2),
    run1_last_in_use_mib: +(use(ev[n - 1]) / M).toFixed(2),
    run2_first_in_use_mib: +(use(ev[n]) / M).toFixed(2),
    arena_held_end_mib: +(Number(ev[2 * n - 1].args.mem_arena_held) / M).toFixed(2)}));
})().catch((e) => { console.error('ort_arena_profile: ' + e.message); process.exit(1); });
