#!/usr/bin/env node
// Record the shape of every node output onnxruntime computes, control-flow bodies included,
// from onnxruntime's own profiler (one "Node" event per kernel run, with output_type_shape,
// activation_size and output_size), for models whose bodies cannot expose their values as
// graph outputs.
//
// Usage: node scripts/ort_profile.js MODEL.onnx INPUTS.json OUT.json
//   INPUTS.json: {"bind": {"batch": 1, ...},
//                 "inputs": {"name": {"dtype": "float32", "shape": [1, 512], "values": [..]?}}}
// OUT.json: {"bind": ..., "events": [{"node": "Conv_3", "op": "Conv", "inputs": [..],
//            "outputs": [{"dtype": "float", "shape": [1, 2]}], "activation_size": N,
//            "output_size": N}]}
// Graph optimizations are off, so the nodes are the model's own. NODE_PATH must reach
// onnxruntime-node.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');

function tensor(spec) {
  const n = spec.shape.reduce((a, b) => a * b, 1);
  const vals = spec.values;
  const at = (i) => (vals ? vals[i % vals.length] : Math.sin(i) * 0.5);
  if (spec.dtype === 'int64')
    return new ort.Tensor('int64', BigInt64Array.from({length: n}, (_, i) => BigInt(Math.trunc(at(i)))), spec.shape);
  if (spec.dtype === 'float32')
    return new ort.Tensor('float32', Float32Array.from({length: n}, (_, i) => at(i)), spec.shape);
  if (spec.dtype === 'bool')
    return new ort.Tensor('bool', Uint8Array.from({length: n}, (_, i) => (at(i) ? 1 : 0)), spec.shape);
  throw new Error('unsupported input dtype ' + spec.dtype);
}

function typed(o) {
  const [dt, sh] = Object.entries(o)[0];
  return {dtype: dt, shape: sh};
}

async function main() {
  const [model, inputs, out] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(inputs, 'utf8'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  const sess = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'disabled',
    enableProfiling: true,
    profileFilePrefix: path.join(dir, 'p'),
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  const feeds = {};
  for (const [k, v] of Object.entries(spec.inputs)) feeds[k] = tensor(v);
  await sess.run(feeds);
  sess.endProfiling();
  if (sess.release) await sess.release();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const prof = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, {recursive: true, force: true});
  const events = [];
  for (const e of prof) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const a = e.args;
    events.push({
      node: e.name.slice(0, -'_kernel_time'.length),
      op: a.op_name,
      inputs: (a.input_type_shape || []).map(typed),
      outputs: (a.output_type_shape || []).map(typed),
      activation_size: Number(a.activation_size || 0),
      output_size: Number(a.output_size || 0),
    });
  }
  fs.writeFileSync(out, JSON.stringify({bind: spec.bind || {}, events}, null, 0) + '\n');
  console.log('ort profile', path.basename(model), events.length, 'kernel runs');
}
main().catch((e) => {
  console.error('ort_profile: ' + e.message);
  process.exit(1);
});
