#!/usr/bin/env node
// Write the graph onnxruntime runs after its optimizations (fused com.microsoft contrib ops:
// Attention, SkipLayerNormalization, BiasGelu / FastGelu, FusedConv, FusedMatMul, ...) with
// the session option optimizedModelFilePath, for the importer's contrib-op tests.
// Usage: node scripts/ort_optimize.js IN.onnx OUT.onnx LEVEL   (LEVEL: basic | extended | all)
// NODE_PATH must reach onnxruntime-node. CPU provider, one thread.
'use strict';
const ort = require('onnxruntime-node');
(async () => {
  const [src, dst, level] = process.argv.slice(2);
  const s = await ort.InferenceSession.create(src, {
    graphOptimizationLevel: level || 'extended',
    optimizedModelFilePath: dst,
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
  if (s.release) await s.release();
  console.log('ort optimized', src, '->', dst, '(' + (level || 'extended') + ')');
})().catch((e) => {
  console.error('ort_optimize: ' + e.message);
  process.exit(1);
});
