// Deterministic onnxruntime inputs from a NAME.inputs.json spec ({"inputs": {name:
// {"dtype", "shape"}}}), shared by scripts/ort_shapes.js, bench/accuracy/measure_ort.js
// and bench/ort_memory/ort_rss.js: int64 inputs alternate 0/1 (valid token, type and mask
// ids), float32 inputs follow sin(i)/2.
'use strict';

function tensor(ort, dtype, shape, values) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (values && values.length === n) {
    // explicit values (e.g. a sample rate input that must be 16000)
    if (dtype === 'int64') return new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), shape);
    if (dtype === 'float32') return new ort.Tensor('float32', Float32Array.from(values), shape);
  }
  if (dtype === 'int64') {
    const a = new BigInt64Array(n);
    for (let i = 0; i < n; i++) a[i] = BigInt(i % 2);
    return new ort.Tensor('int64', a, shape);
  }
  if (dtype === 'float32') {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = Math.sin(i) * 0.5;
    return new ort.Tensor('float32', a, shape);
  }
  throw new Error('unsupported input dtype ' + dtype);
}

// {input name: ort.Tensor} for every input of the spec
function feeds(ort, spec) {
  const out = {};
  for (const [k, v] of Object.entries(spec.inputs)) out[k] = tensor(ort, v.dtype, v.shape, v.values);
  return out;
}

module.exports = { tensor, feeds };
