'use strict';
// Engine: owns a C engine. On a real clock it is a POLLED engine whose fd
// is watched on Node's own loop (no thread of its own), holding the loop
// only while a timer is armed; with { manualClock: true } time moves only
// by advance(), for tests. Engine-wide times are in milliseconds, as
// Node's own clocks and its test runner's mock timers count them.
const raw = require('./native.js');
const { explain, canceled } = require('./errors.js');
const { Timer, MADE_BY_ENGINE } = require('./timer.js');
const { CLOCKS, TICK_POLICIES, choice, number, unixSeconds, dateOf, typeError, describe } = require('./values.js');

const OPTIONS = new Set(['label', 'tick', 'tickPolicy', 'clock', 'leeway', 'wake', 'signal']);
const RAW = new WeakMap(); // Engine -> its External, for the scenario runner
// The engines on the real clock with a timer that may still fire or owe an
// event: kept from the garbage collector until it has (the addon holds only
// a deliver function that does not reach its Engine, so an Engine nobody
// uses is collected, and its External's finalizer closes it).
const LIVE = new Set();

class Engine {
  #raw;
  #timers = new Map(); // handle -> Timer: where events go
  #holds = 0; // armed timers that keep Node's loop alive
  #keeps = 0; // armed timers, unref'd or not: while > 0 the Engine is in LIVE
  #closed = false;
  #owner;

  /** new Engine() on the real clocks; new Engine({ manualClock: true }) for tests. */
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw typeError(`new Engine() options must be an object, got ${describe(options)}`);
    const manual = options.manualClock ?? false;
    if (typeof manual !== 'boolean') throw typeError(`options.manualClock must be a boolean, got ${describe(manual)}`);
    this.manualClock = manual;
    this.#raw = raw.engineNew(manual, deliverTo(new WeakRef(this.#timers)));
    RAW.set(this, this.#raw);
    this.#owner = {
      raw: this.#raw,
      engine: this,
      manual,
      hold: (delta) => this.#hold(delta),
      keep: (delta) => this.#keep(delta),
      forget: (timer) => this.#timers.delete(timer.handle),
    };
  }

  /** A countdown of `seconds` (0 < seconds <= 100 years), idle until started. */
  countdown(seconds, options) {
    if (typeof seconds !== 'number') number(seconds, 'engine.countdown() seconds');
    let handle;
    try {
      handle = raw.countdown(this.#raw, seconds, 8);
    } catch (error) {
      throw explain(error, 'engine.countdown()', {
        value: seconds, rule: 'seconds must be above 0 and at most 3155760000 (100 years)',
      });
    }
    return this.#adopt(handle, 'countdown', options, 'engine.countdown()');
  }

  /** A stopwatch: counts up, never finishes. */
  stopwatch(options) {
    return this.#make('stopwatch', () => raw.stopwatch(this.#raw, 8), options, { what: 'engine.stopwatch()' });
  }

  /** An alarm at a wall-clock time (a Date or epoch ms) that follows changes of the clock. */
  alarm(when, options) {
    const seconds = unixSeconds(when, 'engine.alarm() when');
    return this.#make('alarm', () => raw.alarm(this.#raw, seconds, 8), options, {
      what: 'engine.alarm()', value: when, rule: 'the time must be from 1970 to 2070',
    });
  }

  /** A calendar alarm on a systemd.time(7) spec ('Mon..Fri 07:00 Europe/Berlin'). */
  calendar(spec, options) {
    if (typeof spec !== 'string') throw typeError(`engine.calendar() spec must be a string, got ${describe(spec)}`);
    return this.#make('calendar', () => raw.calendar(this.#raw, spec, 8), options, {
      what: 'engine.calendar()', value: spec, rule: () => calendarReason(spec),
    });
  }

  #make(kind, make, options, context) {
    checkOptions(options, context.what);
    let handle;
    try {
      handle = make();
    } catch (error) {
      throw explain(error, context.what, context);
    }
    return this.#adopt(handle, kind, options, context.what);
  }

  /** A Timer for a new handle, with its options set (a failing one frees it). */
  #adopt(handle, kind, options, what) {
    const timer = new Timer(MADE_BY_ENGINE, this.#owner, handle, kind);
    this.#timers.set(handle, timer);
    if (options === undefined) return timer;
    try {
      checkOptions(options, what);
      if (options.label !== undefined) timer.label = options.label;
      if (options.tick !== undefined) timer.tick = options.tick;
      if (options.tickPolicy !== undefined) timer.tickPolicy = options.tickPolicy;
      if (options.clock !== undefined) timer.clock = options.clock;
      if (options.leeway !== undefined) timer.leeway = options.leeway;
      if (options.wake !== undefined) timer.wake = options.wake;
      timer._abortWith(options.signal);
    } catch (error) {
      timer.free();
      throw error;
    }
    return timer;
  }

  /** Every timer of the engine, in creation order. */
  timers() {
    return this.#try('engine.timers()', () => raw.timers(this.#raw)).map((handle) => this.#timers.get(handle)).filter(Boolean);
  }

  /** Manual clock: moves time on by `ms` milliseconds, delivering what falls
      due on the way (listeners run inside; the first that throws is thrown
      here afterwards). Returns how many events were delivered. */
  advance(ms) {
    const value = number(ms, 'engine.advance() ms');
    return this.#try('engine.advance()', () => raw.advance(this.#raw, value / 1000), {
      value: ms, rule: 'ms must be from 0 to 100 years, on a manual-clock engine',
    });
  }

  /** Manual clock: the machine sleeps for `ms`; 'awake' timers stand still. */
  simulateSuspend(ms) {
    const value = number(ms, 'engine.simulateSuspend() ms');
    return this.#try('engine.simulateSuspend()', () => raw.simulateSuspend(this.#raw, value / 1000), {
      value: ms, rule: 'ms must be from 0 to 100 years, on a manual-clock engine',
    });
  }

  /** Manual clock: sets the simulated wall clock (a Date or epoch ms). */
  setWallClock(when) {
    const seconds = unixSeconds(when, 'engine.setWallClock() when');
    return this.#try('engine.setWallClock()', () => raw.setWallClock(this.#raw, seconds), {
      value: when, rule: 'the time must be from 1970 to 2070',
    });
  }

  /** The engine's clock in milliseconds: CLOCK_BOOTTIME (counts suspends),
      or the manual clock from 0. */
  get now() { return this.#try('engine.now', () => raw.now(this.#raw)) * 1000; }

  /** The wall clock alarms follow (the simulated one on a manual clock). */
  get wallClock() { return dateOf(this.#try('engine.wallClock', () => raw.wallClock(this.#raw))); }

  /** Writes every timer to a file, atomically. */
  save(path) {
    if (typeof path !== 'string') throw typeError(`engine.save() path must be a string, got ${describe(path)}`);
    this.#try('engine.save()', () => raw.save(this.#raw, path), { value: path });
  }

  /** Adds the timers saved in a file; returns them, in the file's order. */
  load(path) {
    if (typeof path !== 'string') throw typeError(`engine.load() path must be a string, got ${describe(path)}`);
    const handles = this.#try('engine.load()', () => raw.load(this.#raw, path), { value: path });
    return handles.map((handle) => {
      const timer = this.#adopt(handle, kindOf(this.#raw, handle), undefined, 'engine.load()');
      raw.setEvents(this.#raw, handle, 8); // the addon set every kind for a held FINISH
      timer._armIfRunning();
      return timer;
    });
  }

  /** Whether timers with `wake: true` can wake a suspended machine here
      (CAP_WAKE_ALARM and a wake-capable clock); wakeReason says why not. */
  get canWake() { return this.#try('engine.canWake', () => raw.canWake(this.#raw)) === 1; }

  get wakeReason() { return this.#try('engine.wakeReason', () => raw.wakeReason(this.#raw)); }

  get closed() { return this.#closed; }

  /** Frees every timer and the engine; later calls throw TOCSIN_ECLOSED.
      Closing twice is allowed. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    LIVE.delete(this);
    raw.engineClose(this.#raw);
    for (const timer of [...this.#timers.values()]) timer._gone(closedWithIt);
  }

  #hold(delta) {
    const before = this.#holds;
    this.#holds += delta;
    if (!this.manualClock && !this.#closed && (before === 0) !== (this.#holds === 0)) raw.engineRef(this.#raw, this.#holds > 0);
  }

  #keep(delta) {
    this.#keeps += delta;
    if (this.manualClock || this.#closed) return;
    if (this.#keeps > 0) LIVE.add(this);
    else LIVE.delete(this);
  }

  #try(what, call, context) {
    try {
      return call();
    } catch (error) {
      throw explain(error, what, context);
    }
  }
}

const closedWithIt = () => canceled('closed with its engine');

/** The function the addon calls with each event. Made out here so that it
    shares no closure with the Engine's methods: it reaches the Engine's
    timers only through a WeakRef, and the addon's strong reference to it
    keeps no Engine alive. */
function deliverTo(weakTimers) {
  return (handle, ...event) => weakTimers.deref()?.get(handle)?._deliver(...event);
}

function checkOptions(options, what) {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') throw typeError(`${what} options must be an object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (!OPTIONS.has(key)) throw typeError(`${what}: unknown option '${key}' (known: ${[...OPTIONS].join(', ')})`);
  }
}

function kindOf(engine, handle) {
  if (raw.duration(engine, handle) < 0) return 'stopwatch';
  try {
    raw.calendarSpec(engine, handle);
    return 'calendar';
  } catch {
    try {
      raw.alarmTime(engine, handle);
      return 'alarm';
    } catch {
      return 'countdown';
    }
  }
}

/** Why the engine refuses a calendar spec, in its own words. */
function calendarReason(spec) {
  try {
    raw.calendarCheck(spec);
    return 'the spec has no occurrence within 100 years';
  } catch (error) {
    return error.message;
  }
}

/** The engine's External, for the contract's scenario runner (test/). */
function rawEngine(engine) {
  return RAW.get(engine);
}

module.exports = { Engine, rawEngine, CLOCKS, TICK_POLICIES };
