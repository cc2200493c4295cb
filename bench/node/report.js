'use strict';
// Runs start.js, lateness.js and instructions.js (each in fresh processes,
// REPS times, the order of the two engines alternating run by run) and
// prints the markdown tables of bench/README.md ("Node.js"). Ratios are
// taken within each run (tocsin / setTimeout from the same process), then
// their median. bench/node/run.sh builds what it needs and calls this.
//   node bench/node/report.js REPS STRIPPED_LIB_DIR
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const reps = Number(process.argv[2] ?? 5);
const strippedLib = process.argv[3];
const here = __dirname;
const ORDERS = ['tocsin-first', 'settimeout-first'];

function node(script, args, env = process.env) {
  const run = spawnSync(process.execPath, [path.join(here, script), ...args], { encoding: 'utf8', env });
  if (run.status !== 0) throw new Error(`${script} ${args.join(' ')}: ${run.stderr}`);
  return Object.fromEntries(run.stdout.trim().split('\n').map((line) => {
    const [name, ...values] = line.split(' ');
    return [name, values.map(Number)];
  }));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const range = (values) => `${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}`;

// Time per timer.
const starts = [];
for (let i = 0; i < reps; i++) starts.push(node('start.js', ['100000', ORDERS[i % 2]]));
const ns = (name) => starts.map((run) => run[name][0]);
console.log(`Per timer, 100,000 timers made and started in one process (ns; median of ${reps} runs, range):\n`);
console.log('| | ns per timer | range | ratio to setTimeout (median of per-run ratios) |\n| --- | ---: | --- | ---: |');
console.log(`| \`engine.countdown(3600).start()\` | ${median(ns('tocsin')).toFixed(0)} | ${range(ns('tocsin').map((v) => v / 1000))} µs | ${median(starts.map((r) => r.tocsin[0] / r.settimeout[0])).toFixed(2)} |`);
console.log(`| \`setTimeout(fn, 3600000)\` | ${median(ns('settimeout')).toFixed(0)} | ${range(ns('settimeout').map((v) => v / 1000))} µs | 1 |`);

// Instructions per timer (callgrind): N = 100,000 less N = 0, over 100,000.
if (strippedLib) {
  const env = { ...process.env, LD_LIBRARY_PATH: strippedLib };
  const count = (kind, n) => {
    const out = path.join(require('node:os').tmpdir(), `tocsin-node-cg-${process.pid}.out`);
    // --single-threaded: V8 compiles on the main thread, so the counts repeat
    // (with background compilers they move by a quarter from run to run).
    const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, '--single-threaded',
      path.join(here, 'instructions.js'), kind, String(n)], { encoding: 'utf8', env });
    if (run.status !== 0) throw new Error(`callgrind ${kind} ${n}: ${run.stderr.slice(-2000)}`);
    const summary = Number(/^summary: (\d+)$/m.exec(require('node:fs').readFileSync(out, 'utf8'))[1]);
    require('node:fs').rmSync(out);
    return summary;
  };
  const per = (kind) => (count(kind, 100000) - count(kind, 0)) / 100000;
  const tocsin = per('tocsin');
  const settimeout = per('settimeout');
  console.log('\nInstructions per timer (callgrind, the same however busy the machine): a process making 100,000 timers less one making none, over 100,000, with `node --single-threaded` so that V8 compiles on the main thread and the counts repeat to 0.1 %:\n');
  console.log('| | instructions per timer | ratio |\n| --- | ---: | ---: |');
  console.log(`| \`engine.countdown(3600).start()\` | ${tocsin.toFixed(0)} | ${(tocsin / settimeout).toFixed(2)} |`);
  console.log(`| \`setTimeout(fn, 3600000)\` | ${settimeout.toFixed(0)} | 1 |`);
}

// Lateness: 10,000 timers due over 2 s.
const late = [];
for (let i = 0; i < reps; i++) late.push(node('lateness.js', ['10000', ORDERS[i % 2]]));
const col = (name, at) => late.map((run) => run[name][at]);
console.log(`\nLateness of 10,000 timers due over 2 s, measured alike from outside (ms; median of ${reps} runs, range; early: timers that fired before their time):\n`);
console.log('| | median | p99 | max | early | median ratio | p99 ratio |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const name of ['tocsin', 'settimeout']) {
  const ratio = (at) => median(late.map((run) => run[name][at] / run.settimeout[at])).toFixed(2);
  console.log(`| ${name === 'tocsin' ? 'tocsin countdowns' : 'setTimeout'} | ${median(col(name, 0)).toFixed(3)} (${range(col(name, 0))}) | ` +
    `${median(col(name, 1)).toFixed(3)} (${range(col(name, 1))}) | ${median(col(name, 2)).toFixed(3)} | ${median(col(name, 3))} of 10,000 | ` +
    `${name === 'tocsin' ? ratio(0) : 1} | ${name === 'tocsin' ? ratio(1) : 1} |`);
}
const own = (at) => median(col('tocsin-engine-lateness', at)).toFixed(3);
console.log(`\nThe engine's own \`lateness\` for the same tocsin timers: median ${own(0)} ms, p99 ${own(1)} ms, max ${own(2)} ms.`);
