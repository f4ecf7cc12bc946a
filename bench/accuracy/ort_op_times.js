#!/usr/bin/env node
// Per-op-class time of onnxruntime (CPU, graph optimizations "all", as measure_ort.js runs
// it) from its own profiler: the kernel time of every node, summed per class and divided by
// the number of profiled runs. Used to find which op classes the cost model misprices
// (bench/accuracy/op_classes.py joins it with bench_cost_accuracy --classes).
//
// usage: node ort_op_times.js DIR THREADS NAME...   (NODE_PATH must reach onnxruntime-node)
// prints one JSON line per model: {"model", "threads", "runs", "total_ms", "classes": {..}}
// env: TP_PROFILE_RUNS (default 10)
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');
const { feeds: makeFeeds } = require('../../scripts/ort_feeds.js');

function shapeOf(o) {
  return Object.values(o)[0];
}

// The class of one profiled kernel: the same classes as bench_cost_accuracy's node classes.
function classOf(op, ins) {
  if (op === 'Conv' || op === 'FusedConv' || op === 'ConvTranspose') {
    const x = ins[0] ? shapeOf(ins[0]) : null;
    const w = ins[1] ? shapeOf(ins[1]) : null;
    if (!x || !w || w.length < 3) return 'conv';
    const cg = w[1];
    const area = w.slice(2).reduce((a, b) => a * b, 1);
    const cin = x[1] * (x.length === 5 ? x[4] : 1);
    if (op === 'ConvTranspose') return 'conv';
    if (cg === 1 && cin > 1) return 'conv_dw';
    if (cg < cin && cin > 0 && w[0] !== undefined && cg * 2 <= cin) return 'conv_group';
    return area === 1 ? 'conv_1x1' : 'conv';
  }
  if (/^(MatMul|FusedMatMul|Gemm|MatMulInteger|QGemm|Attention|MultiHeadAttention|MatMulNBits|Einsum)$/.test(op)) return 'matmul';
  if (/Norm/.test(op)) return 'norm';
  if (/^(Softmax|LogSoftmax|Reduce.*|ArgMax|ArgMin|TopK|CumSum)$/.test(op)) return 'softmax_reduce';
  if (/Pool$/.test(op)) return 'pool';
  if (/^(ReorderInput|ReorderOutput|Transpose|Concat|Split|Slice|Gather|GatherElements|Pad|Expand|Tile|Resize|Upsample|ScatterND|ScatterElements|DepthToSpace|SpaceToDepth)$/.test(op)) return 'move';
  if (/^(Shape|Reshape|Squeeze|Unsqueeze|Flatten|Identity|Constant|ConstantOfShape|Range|Size)$/.test(op)) return 'meta';
  return 'elementwise';
}

async function one(dir, name, threads, runs) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, name + '.inputs.json'), 'utf8'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-op-times-'));
  const opts = {intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    enableProfiling: true, profileFilePrefix: path.join(tmp, 'p')};
  if (threads > 1) opts.extra = {session: {intra_op: {allow_spinning: '0'}}};
  const sess = await ort.InferenceSession.create(path.join(dir, name + '.onnx'), opts);
  const feeds = makeFeeds(ort, spec);
  for (let i = 0; i < runs + 2; i++) await sess.run(feeds);
  sess.endProfiling();
  if (sess.release) await sess.release();
  const file = fs.readdirSync(tmp).find((f) => f.endsWith('.json'));
  const prof = JSON.parse(fs.readFileSync(path.join(tmp, file), 'utf8'));
  fs.rmSync(tmp, {recursive: true, force: true});
  // kernel events per run: skip the two warm-up runs (the first "model_run" events)
  const runEnds = prof.filter((e) => e.name === 'model_run').map((e) => e.ts);
  const after = runEnds.length > 2 ? runEnds[2] : 0;
  const classes = {}, ops = {};
  let total = 0;
  for (const e of prof) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < after) continue;
    const op = e.args.op_name;
    const c = classOf(op, e.args.input_type_shape || []);
    const ms = e.dur / 1000 / runs;
    classes[c] = (classes[c] || 0) + ms;
    ops[op] = (ops[op] || 0) + ms;
    total += ms;
  }
  return {model: name, threads, runs, total_ms: total, classes, ops};
}

async function main() {
  const [dir, t, ...names] = process.argv.slice(2);
  const runs = parseInt(process.env.TP_PROFILE_RUNS || '10', 10);
  for (const n of names) console.log(JSON.stringify(await one(dir, n, parseInt(t, 10), runs)));
}
main().catch((e) => {
  console.error('ort_op_times: ' + e.message);
  process.exit(1);
});
