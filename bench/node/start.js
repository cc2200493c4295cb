'use strict';
// Time per timer: N x `engine.countdown(3600).start()` against N x
// `setTimeout(fn, 3600000)`, in one process, each kept until all are made
// (as a program keeps its timers), then freed. Prints one line per engine:
// "NAME ns_per_timer". Run by bench/node/run.sh (REPS alternate the order).
//   node bench/node/start.js N [ORDER]   ORDER: tocsin-first (default) or settimeout-first
const { Engine } = require('../../bindings/node');

const n = Number(process.argv[2] ?? 100000);
const order = process.argv[3] === 'settimeout-first' ? ['settimeout', 'tocsin'] : ['tocsin', 'settimeout'];
const noop = () => {};

const runs = {
  tocsin() {
    const engine = new Engine();
    const kept = new Array(n);
    const began = process.hrtime.bigint();
    for (let i = 0; i < n; i++) kept[i] = engine.countdown(3600).start();
    const took = process.hrtime.bigint() - began;
    engine.close();
    return took;
  },
  settimeout() {
    const kept = new Array(n);
    const began = process.hrtime.bigint();
    for (let i = 0; i < n; i++) kept[i] = setTimeout(noop, 3_600_000);
    const took = process.hrtime.bigint() - began;
    for (const timer of kept) clearTimeout(timer);
    return took;
  },
};

for (const name of order) console.log(name, Number(runs[name]()) / n);
