'use strict';
// The work callgrind counts for bench/node/run.sh: N timers made and
// started, kept, then freed, after the same prelude for every N (the addon
// loaded, an engine made), so that the difference between N = 0 and
// N = 100,000 is the cost of 100,000 timers in one run, warm-up included.
//   node bench/node/instructions.js tocsin|settimeout N
const { Engine } = require('../../bindings/node');

const [kind, count] = [process.argv[2], Number(process.argv[3])];
const engine = new Engine();
const kept = new Array(count);
const noop = () => {};
if (kind === 'tocsin') {
  for (let i = 0; i < count; i++) kept[i] = engine.countdown(3600).start();
} else {
  for (let i = 0; i < count; i++) kept[i] = setTimeout(noop, 3_600_000);
  for (const timer of kept) clearTimeout(timer);
}
engine.close();
