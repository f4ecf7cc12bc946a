#!/usr/bin/env node
// Measure the real forward latency of exported ONNX models with onnxruntime (CPU).
//
// For each NAME: loads DIR/NAME.onnx (weights in NAME.onnx.data), fills the inputs of
// DIR/NAME.inputs.json (the same fixed sizes the importer binds), runs 2 warm-up passes,
// then timed passes until at least MIN_RUNS runs and MIN_SECONDS have passed, and prints
// one JSON line: {"model", "threads", "runs", "median_ms", "min_ms", "p90_ms", "cpu_ms",
// "busy_ms", "load1"}.
// cpu_ms is the median CPU time (user + system, whole process) of one run: with one
// thread it is the latency the run would have on an idle machine, which matters on a
// shared, loaded machine where wall times are stretched by other processes.
// Graph optimizations are onnxruntime's default ("all"): this is what a deployment sees.
//
// usage: node measure_ort.js DIR THREADS NAME...   (NODE_PATH must reach onnxruntime-node)
// env:   TP_BENCH_MIN_RUNS (default 5), TP_BENCH_MIN_SECONDS (default 2)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');
const { feeds: makeFeeds } = require('../../scripts/ort_feeds.js');

function quantile(sorted, q) {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i];
}

// CPU time (user + system, ms) of every thread of this process, from /proc/self/task: with
// several threads, the busiest thread's CPU time per run (busy_ms) is what a run would take on
// an idle machine if the threads overlapped perfectly (a lower bound), robust to other
// processes taking the cores. Clock-tick resolution: meaningful summed over many runs.
function threadTimes() {
  const out = new Map();
  let hz = 100;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const st = fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (parseInt(f[11], 10) + parseInt(f[12], 10)) * 1000 / hz);
    } catch (e) {
      // a thread that ended between readdir and read
    }
  }
  return out;
}

async function one(dir, name, threads, minRuns, minSeconds) {
  const spec = JSON.parse(fs.readFileSync(path.join(dir, name + '.inputs.json'), 'utf8'));
  const opts = {intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential'};
  // several threads: no spin-waiting, so that a thread's CPU time is its work (busy_ms)
  if (threads > 1) opts.extra = {session: {intra_op: {allow_spinning: '0'}}};
  const sess = await ort.InferenceSession.create(path.join(dir, name + '.onnx'), opts);
  const feeds = makeFeeds(ort, spec);
  for (let i = 0; i < 2; i++) await sess.run(feeds);
  const times = [], cpu = [];
  const task0 = threadTimes();
  const start = process.hrtime.bigint();
  for (;;) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    const t1 = process.hrtime.bigint();
    const c1 = process.cpuUsage(c0);
    times.push(Number(t1 - t0) / 1e6);
    cpu.push((c1.user + c1.system) / 1e3);
    const total = Number(t1 - start) / 1e9;
    if (times.length >= minRuns && total >= minSeconds) break;
    // a safety cap far above MIN_SECONDS of a tiny model (wakeword: ~20 µs a run): with a cap of
    // 1,000 runs it was timed over 20-60 ms, and its median flipped between 0.021 and 0.065 ms
    // from one window to the next
    if (times.length >= 200000) break;
  }
  const task1 = threadTimes();
  let busy = 0;
  for (const [tid, t] of task1) busy = Math.max(busy, t - (task0.get(tid) || 0));
  if (sess.release) await sess.release();
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return {
    model: name,
    threads: threads,
    runs: times.length,
    median_ms: quantile(times, 0.5),
    min_ms: times[0],
    p90_ms: quantile(times, 0.9),
    cpu_ms: quantile(cpu, 0.5),
    busy_ms: busy / times.length,
    load1: parseFloat(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
  };
}

async function main() {
  const [dir, threadsArg, ...names] = process.argv.slice(2);
  if (!dir || !threadsArg || names.length === 0) {
    console.error('usage: node measure_ort.js DIR THREADS NAME...');
    process.exit(2);
  }
  const threads = parseInt(threadsArg, 10);
  const minRuns = parseInt(process.env.TP_BENCH_MIN_RUNS || '5', 10);
  const minSeconds = parseFloat(process.env.TP_BENCH_MIN_SECONDS || '2');
  let failed = 0;
  for (const name of names) {
    try {
      const r = await one(dir, name, threads, minRuns, minSeconds);
      console.log(JSON.stringify(r));
    } catch (e) {
      failed++;
      console.error('measure_ort: ' + name + ': ' + (e && e.message ? e.message : e));
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
