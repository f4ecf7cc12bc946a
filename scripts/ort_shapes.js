#!/usr/bin/env node
// Record what onnxruntime computes for every node output of the exported models.
//
// For each DIR/NAME.all.onnx (made by scripts/export_models.py: the model with every
// node output added as a graph output) this runs onnxruntime-node once, with graph
// optimizations off and the fixed input sizes of DIR/NAME.inputs.json, and writes
// DIR/NAME.shapes.json (and NAME.shapes_alt.json for the second sizes, "alt"):
//   {"model": "...", "bind": {"batch": 2, ...},
//    "values": [
//      {"name": "...", "dtype": "float32", "shape": [2, 64, 112, 112]},
//      ... one line per value ...
//   ]}
// One value per line, so that the C test can read it without a JSON library.
// Usage: node scripts/ort_shapes.js DIR [NAME ...]   (NODE_PATH must reach onnxruntime-node)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { feeds: makeFeeds } = require('./ort_feeds.js');

async function one(dir, name) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, name + '.inputs.json'), 'utf8'));
  const sess = await ort.InferenceSession.create(path.join(dir, name + '.all.onnx'), {
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  let n = await record(sess, dir, name + '.shapes.json', name, spec);
  if (spec.alt) n += await record(sess, dir, name + '.shapes_alt.json', name, spec.alt);
  if (sess.release) await sess.release();
  return n;
}

async function record(sess, dir, file, name, spec) {
  const feeds = makeFeeds(ort, spec);
  const out = await sess.run(feeds);
  const lines = [];
  for (const k of sess.outputNames) {
    const t = out[k];
    lines.push(JSON.stringify({name: k, dtype: t.type, shape: t.dims.map(Number)}));
  }
  for (const [k, v] of Object.entries(spec.inputs))
    lines.push(JSON.stringify({name: k, dtype: v.dtype, shape: v.shape}));
  const text = '{"model": ' + JSON.stringify(name) + ', "bind": ' + JSON.stringify(spec.bind) +
      ',\n "values": [\n' + lines.join(',\n') + '\n]}\n';
  const dst = path.join(dir, file);
  fs.writeFileSync(dst + '.tmp', text);
  fs.renameSync(dst + '.tmp', dst);
  return lines.length;
}

async function main() {
  const dir = process.argv[2];
  let names = process.argv.slice(3);
  if (!names.length)
    names = fs.readdirSync(dir).filter((f) => f.endsWith('.all.onnx')).map((f) => f.slice(0, -9));
  let failed = 0;
  for (const n of names) {
    try {
      const c = await one(dir, n);
      console.log('ort shapes', n, c, 'values');
    } catch (e) {
      console.error('ort shapes of ' + n + ' failed: ' + e.message);
      failed++;
    }
  }
  process.exit(failed ? 1 : 0);
}
main();
