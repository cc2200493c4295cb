'use strict';
// Lateness of N timers due over 2 s (due LEAD ms + 0..2000 ms after each
// is made, whole milliseconds so that setTimeout is not rounded down; the
// lead lets all N be made before the first is due), tocsin countdowns
// against setTimeout, one after the other in one process. Late is measured
// the same way for both, from outside: performance.now() in the callback
// less the time just before the timer was made plus its delay; a negative
// value is a timer that fired early. For tocsin the engine's own `lateness` is kept too.
// Prints "NAME median_ms p99_ms max_ms early_count" per engine.
//   node bench/node/lateness.js N [ORDER]
const { Engine } = require('../../bindings/node');

const n = Number(process.argv[2] ?? 10000);
const order = process.argv[3] === 'settimeout-first' ? ['settimeout', 'tocsin'] : ['tocsin', 'settimeout'];
const LEAD = 500;
const delayOf = (i) => LEAD + Math.floor((i * 2000) / n); // spread evenly over 2 s

function summary(name, late) {
  late.sort((a, b) => a - b);
  const at = (q) => late[Math.min(late.length - 1, Math.floor(q * late.length))];
  const early = late.filter((value) => value < 0).length;
  console.log(name, at(0.5).toFixed(3), at(0.99).toFixed(3), late[late.length - 1].toFixed(3), early);
}

const runs = {
  tocsin: () => new Promise((resolve) => {
    const engine = new Engine();
    const late = [];
    const own = [];
    for (let i = 0; i < n; i++) {
      const delay = delayOf(i);
      const start = performance.now();
      engine.countdown(delay / 1000).on('finish', (event) => {
        late.push(performance.now() - start - delay);
        own.push(event.lateness * 1000);
        if (late.length === n) {
          engine.close();
          summary('tocsin', late);
          summary('tocsin-engine-lateness', own);
          resolve();
        }
      }).start();
    }
  }),
  settimeout: () => new Promise((resolve) => {
    const late = [];
    for (let i = 0; i < n; i++) {
      const delay = delayOf(i);
      const start = performance.now();
      setTimeout(() => {
        late.push(performance.now() - start - delay);
        if (late.length === n) {
          summary('settimeout', late);
          resolve();
        }
      }, delay);
    }
  }),
};

(async () => {
  for (const name of order) await runs[name]();
})();
