#!/usr/bin/env node
// Measure what onnxruntime (npm onnxruntime-node, CPU execution provider) takes for one model,
// in this fresh process: the peak resident-memory growth (VmHWM from /proc/self/status) over
// session creation and the first two runs, against the resident set just before the session is
// created (after onnxruntime's module and the inputs are loaded). The peak is reset to that
// resident set first (/proc/self/clear_refs, 5), so a transient of Node's own start-up that was
// freed again cannot hide part of onnxruntime's growth. The resident set is also split into
// anonymous memory (heap, arena) and file pages (mostly onnxruntime's code, mapped as it runs):
// how many file pages a fault maps depends on the machine (kernel, page cache), so the split
// tells where two machines differ.
//
// Usage: node ort_rss.js MODEL.onnx INPUTS.json [--threads N] [--no-mem-pattern] [--no-arena]
//                        [--no-prepack] [--opt-level disabled|basic|extended|all]
// Prints one JSON line:
//   {"model": ..., "base_hwm": B (= the resident set after the reset), "after_create_hwm": C, "after_create_rss": S (VmRSS: what
//    stays resident after the load's transients), "after_run1_hwm": R1,
//    "after_run2_hwm": R2, "growth_bytes": R2 - B, "threads": N,
//    "anon_growth_bytes", "file_growth_bytes": RssAnon and RssFile after the runs minus before
//    (resident now, not peaks), "hwm_reset": whether the kernel took the reset, ...}
// NODE_PATH must reach onnxruntime-node (.fixtures/ort/node_modules).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');
const { feeds: makeFeeds } = require('../../scripts/ort_feeds.js');

function status(field) {
  const s = fs.readFileSync('/proc/self/status', 'utf8');
  const m = new RegExp(field + ':\\s+(\\d+) kB').exec(s);
  return Number(m[1]) * 1024;
}
const hwm = () => status('VmHWM'); // peak resident set so far
const rss = () => status('VmRSS'); // resident set now

// Reset the peak to the resident set now; false where the kernel refuses (before Linux 4.0).
function resetPeak() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch (e) {
    return false;
  }
}

async function main() {
  const args = process.argv.slice(2);
  const model = args[0], inputs = args[1];
  let threads = 2, memPattern = true, arena = true, prepack = true, optLevel = 'all';
  for (let i = 2; i < args.length; i++) {
    if (args[i] === '--threads') threads = Number(args[++i]);
    else if (args[i] === '--no-mem-pattern') memPattern = false;
    else if (args[i] === '--no-arena') arena = false;
    else if (args[i] === '--no-prepack') prepack = false;
    else if (args[i] === '--opt-level') optLevel = args[++i];
    else throw new Error('unknown argument ' + args[i]);
  }
  const spec = JSON.parse(fs.readFileSync(inputs, 'utf8'));
  const feeds = makeFeeds(ort, spec);
  const opts = {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    enableMemPattern: memPattern,
    enableCpuMemArena: arena,
    graphOptimizationLevel: optLevel,
  };
  if (!prepack) opts.extra = {session: {disable_prepacking: '1'}};
  const reset = resetPeak();
  const base = hwm();
  const anon0 = status('RssAnon'), file0 = status('RssFile');
  const sess = await ort.InferenceSession.create(model, opts);
  const created = hwm(), createdRss = rss();
  await sess.run(feeds);
  const run1 = hwm();
  await sess.run(feeds);
  const run2 = hwm();
  const anon = status('RssAnon') - anon0, file = status('RssFile') - file0;
  console.log(JSON.stringify({
    model, threads, mem_pattern: memPattern, arena, prepack, opt_level: optLevel, base_hwm: base,
    after_create_hwm: created, after_create_rss: createdRss, after_run1_hwm: run1, after_run2_hwm: run2,
    growth_bytes: run2 - base, anon_growth_bytes: anon, file_growth_bytes: file, hwm_reset: reset,
    ort_version: ort.env.versions ? ort.env.versions.common : null,
  }));
  if (sess.release) await sess.release();
}
main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
