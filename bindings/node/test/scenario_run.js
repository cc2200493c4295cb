'use strict';
// Runs one scenario file (bindings/contract/README.md) through the
// binding's public API, as the C runner and the Python runner do. Where the
// public API has no such call (a step on handle 0, or on a handle of an
// engine freed by `new-engine`) the engine's own raw call is used. Units:
// scenarios say seconds; the Engine's clock calls take milliseconds and
// its times of day are Dates, so the runner converts.
const fs = require('node:fs');
const path = require('node:path');
const raw = require('../lib/native.js');
const { Engine, rawEngine } = require('../lib/engine.js');
const { read, number, same, event, ScenarioError, STATES, CLOCKS, POLICIES, EVENT_FIELDS } = require('./scenario_file.js');

const CONTRACT = path.join(__dirname, '..', '..', 'contract');
/** status code -> name without TOCSIN_ ('EINVAL'), from the manifest. */
const ERROR_NAMES = new Map(JSON.parse(fs.readFileSync(path.join(CONTRACT, 'abi.json'), 'utf8')).errors
  .map((error) => [error.value, error.name.replace(/^TOCSIN_/, '')]));
const ERROR_VALUES = new Map([...ERROR_NAMES].map(([value, name]) => [`TOCSIN_${name}`, value]));
const KIND_NUMBERS = { tick: 1, state: 2, finish: 3 };

class Failure extends Error {}

/** A name's timer (null: its making step failed, or its engine was freed)
    and handle, and the events its listener got since the last check. */
class Bound {
  constructor(timer, name, order) {
    this.timer = timer;
    this.handle = timer ? timer.handle : 0n;
    this.events = [];
    timer?.on('event', (ev) => {
      this.events.push(ev);
      order.push([name, ev]);
    });
  }
}

/** The step's status: 0, or the engine's code of the Error it threw. */
function statusOf(error) {
  const value = ERROR_VALUES.get(error?.code);
  if (value === undefined) throw error; // not the engine's: a fault of the runner
  return value;
}

// step -> [the public call on a Timer, the raw call for a handle without one, its argument]
const TIMER_STEPS = {
  start: [(t) => t.start(), raw.start],
  suspend: [(t) => t.suspend(), raw.suspend],
  resume: [(t) => t.resume(), raw.resume],
  cancel: [(t) => t.cancel(), raw.cancel],
  free: [(t) => t.free(), raw.free],
  adjust: [(t, v) => t.adjust(number(v)), raw.adjust, number],
  tick: [(t, v) => { t.tick = number(v); }, raw.setTick, number],
  'tick-policy': [(t, v) => { t.tickPolicy = v; }, raw.setTickPolicy, (v) => POLICIES.indexOf(v)],
  leeway: [(t, v) => { t.leeway = number(v); }, raw.setLeeway, number],
  clock: [(t, v) => { t.clock = v; }, raw.setClock, (v) => CLOCKS.indexOf(v)],
  label: [(t, v) => { t.label = v; }, raw.setLabel, (v) => v],
  lap: [(t) => t.lap(), raw.lap],
  skip: [(t, v) => t.skip(Number(v)), raw.skip, Number],
  'skip-until': [(t, v) => t.skipUntil(number(v) * 1000), raw.skipUntil, number],
};

class Run {
  constructor(folder) {
    this.folder = folder;
    this.engine = new Engine({ manualClock: true });
    this.bound = new Map();
    this.status = 0;
    this.result = 0;
    this.order = [];
  }

  step(line) {
    this.result = 0;
    try {
      const result = this.runStep(line.tokens[0], line.tokens.slice(1));
      this.status = 0;
      this.result = typeof result === 'number' ? result : 0;
    } catch (error) {
      this.status = statusOf(error);
    }
  }

  runStep(word, args) {
    const { engine } = this;
    const name = args[0] ?? '';
    const makers = {
      countdown: () => engine.countdown(number(args[1])),
      stopwatch: () => engine.stopwatch(),
      alarm: () => engine.alarm(number(args[1]) * 1000),
      calendar: () => engine.calendar(args[1]),
    };
    if (word in makers) {
      this.bound.set(name, new Bound(null)); // until it is made
      this.bound.set(name, new Bound(makers[word](), name, this.order));
      return undefined;
    }
    if (word === 'advance') return engine.advance(number(args[0]) * 1000);
    if (word === 'suspend-machine') return engine.simulateSuspend(number(args[0]) * 1000);
    if (word === 'set-wall-clock') return engine.setWallClock(number(args[0]) * 1000);
    if (word === 'save') return engine.save(path.join(this.folder, args[0]));
    if (word === 'load') {
      for (const other of args.slice(1)) this.bound.set(other, new Bound(null));
      const restored = engine.load(path.join(this.folder, args[0]));
      args.slice(1).forEach((other, i) => {
        if (i < restored.length) this.bound.set(other, new Bound(restored[i], other, this.order));
      });
      return restored.length;
    }
    if (word === 'new-engine') {
      engine.close();
      this.engine = new Engine({ manualClock: true });
      for (const bound of this.bound.values()) bound.timer = null; // its handle, unknown to the new engine
      return undefined;
    }
    const bound = this.bound.get(name);
    const [call, rawCall, argument] = TIMER_STEPS[word];
    if (bound.timer !== null) return call(bound.timer, args[1]);
    const extra = argument ? [argument(args[1])] : [];
    return rawCall(rawEngine(engine), bound.handle, ...extra);
  }
}

function shown(ev) {
  const detail = ev.type === 'tick' ? `:${ev.tick}` : ev.type === 'state' ? `:${ev.state}` : '';
  return `${ev.type}${detail},elapsed=${ev.elapsed},remaining=${ev.remaining ?? -1},lateness=${ev.lateness},missed=${ev.missed}`;
}

function matches(got, token) {
  const wanted = event(token);
  if (KIND_NUMBERS[got.type] !== wanted.kind) return false;
  if (wanted.detail !== null && !same(wanted.kind === 1 ? got.tick : STATES.indexOf(got.state), wanted.detail)) return false;
  const values = { elapsed: got.elapsed, remaining: got.remaining ?? -1, lateness: got.lateness, missed: got.missed, tick: got.tick };
  return Object.entries(wanted.fields).every(([field, value]) => !EVENT_FIELDS.includes(field) || same(values[field], value));
}

function plural(n) {
  return `got ${n} event${n === 1 ? '' : 's'}: `;
}

function compareNumber(got, expected) {
  const want = number(expected);
  return same(got, want) ? null : `expected ${want}, got ${got}`;
}

// expectation -> the timer's value through the public API, compared
const TIMER_QUERIES = {
  state: (t, want) => (t.state === want ? null : `expected ${want}, got ${t.state}`),
  clock: (t, want) => (t.clock === want ? null : `expected ${want}, got ${t.clock}`),
  elapsed: (t, want) => compareNumber(t.elapsed, want),
  remaining: (t, want) => compareNumber(t.remaining ?? -1, want),
  duration: (t, want) => compareNumber(t.duration ?? -1, want),
  leeway: (t, want) => compareNumber(t.leeway, want),
  'alarm-time': (t, want) => (t.alarmTime === null ? 'the query failed with EINVAL' : compareNumber(t.alarmTime.getTime() / 1000, want)),
  label: (t, want) => (t.label === want ? null : `expected "${want}", got "${t.label}"`),
  calendar: (t, want) => (t.calendar === want ? null : `expected "${want}", got ${t.calendar === null ? 'none' : `"${t.calendar}"`}`),
  'skipped-until': (t, want) => {
    const until = t.skippedUntil;
    if (want === 'none') return until === null ? null : `expected none, got ${until.getTime() / 1000}`;
    return until === null ? `expected ${want}, got none` : compareNumber(until.getTime() / 1000, want);
  },
};

function expectation(run, line) {
  const [, what, ...args] = line.tokens;
  if (what === 'error') {
    const got = ERROR_NAMES.get(run.status) ?? String(run.status);
    return got === args[0] ? null : `expected ${args[0]}, got ${got}`;
  }
  if (what === 'result') return compareNumber(run.result, args[0]);
  if (what === 'now') return compareNumber(run.engine.now / 1000, args[0]);
  if (what === 'wall-clock') return compareNumber(run.engine.wallClock.getTime() / 1000, args[0]);
  if (what === 'timers') return compareNumber(run.engine.timers().length, args[0]);
  if (what === 'events') {
    const bound = run.bound.get(args[0]);
    const got = bound.events.splice(0);
    const wanted = args.slice(1);
    if (got.length === wanted.length && got.every((ev, i) => matches(ev, wanted[i]))) return null;
    return plural(got.length) + (got.map(shown).join(' ') || 'none');
  }
  if (what === 'order') {
    const got = run.order.splice(0);
    const wanted = args.map((token) => [token.slice(0, token.indexOf('/')), token.slice(token.indexOf('/') + 1)]);
    if (got.length === wanted.length && got.every(([name, ev], i) => name === wanted[i][0] && matches(ev, wanted[i][1]))) return null;
    return plural(got.length) + (got.map(([name, ev]) => `${name}/${shown(ev)}`).join(' ') || 'none');
  }
  const bound = run.bound.get(args[0]);
  try {
    if (bound.timer === null) { // handle 0 or a freed engine's: the engine says why
      raw.state(rawEngine(run.engine), bound.handle);
      return 'a timer that is not there answered';
    }
    if (what === 'laps') {
      const { laps } = bound.timer;
      const ok = laps.length === args.length - 1 && laps.every((lap, i) => same(lap, number(args[i + 1])));
      return ok ? null : `got ${laps.length} laps: ${laps.join(' ') || 'none'}`;
    }
    return TIMER_QUERIES[what](bound.timer, args[1]);
  } catch (error) {
    return `the query failed with ${ERROR_NAMES.get(statusOf(error))}`;
  }
}

/** Runs the file; throws a Failure "FILE:LINE: text: what" at the first fault. */
function runScenario(file, folder) {
  let lines;
  try {
    lines = read(file);
  } catch (error) {
    if (error instanceof ScenarioError) throw new Failure(error.message);
    throw error;
  }
  const run = new Run(folder);
  try {
    for (const line of lines) {
      const where = `${path.basename(file)}:${line.number}: ${line.text}`;
      if (!line.isExpect) {
        run.step(line);
        if (run.status !== 0 && !line.errorChecked) {
          throw new Failure(`${where}: failed with ${ERROR_NAMES.get(run.status) ?? run.status} (no 'expect error' follows)`);
        }
        if (run.status === 0 && line.tokens[0] === 'load' && run.result !== line.tokens.length - 2) {
          throw new Failure(`${where}: restored ${run.result} timers for ${line.tokens.length - 2} names`);
        }
        continue;
      }
      const problem = expectation(run, line);
      if (problem) throw new Failure(`${where}: ${problem}`);
    }
  } finally {
    run.engine.close();
  }
}

module.exports = { runScenario, Failure };
