'use strict';
// Timer: a countdown, stopwatch, alarm or calendar alarm of an Engine.
// Durations are in seconds (as the engine counts them), times of day are
// Dates. Each method is one native call or two; a failed call throws the
// engine's Error, reworded by errors.js, and changes nothing.
const raw = require('./native.js');
const { explain, canceled } = require('./errors.js');
const { Listeners } = require('./listeners.js');
const {
  STATES, KINDS, CLOCKS, TICK_POLICIES, RUNNING, EVENTS, unixSeconds, dateOf, choice, number, typeError,
} = require('./values.js');

const MADE_BY_ENGINE = Symbol('made by its engine');
const STATE = 2;
const FINISH = 3;
const ARMED = 1; // running, or about to be: something may still fire
const UNREF = 2; // unref() was called
const HOLDING = 4; // counted in the engine's hold on Node's loop
const FREED = 8;
const KEEPING = 32; // counted in the engine's keeps (kept from the garbage collector)
const OWED = 16; // a STATE event is on its way (cancel, suspend, a held FINISH of load()): held until it comes

class Timer {
  #owner; // the Engine's side: raw (its External), hold(delta), keep(delta), forget(timer), manual
  #events = EVENTS.finish; // the bits the engine has for it
  #flags = 0; // ARMED | UNREF | HOLDING | FREED | OWED | KEEPING
  #more = null; // what only some timers need (More), made when first needed

  constructor(token, owner, handle, kind) {
    if (token !== MADE_BY_ENGINE) throw typeError('a Timer is made by its engine: engine.countdown(), stopwatch(), alarm() or calendar()');
    this.#owner = owner;
    /** The C handle (a BigInt), unique within the engine, never reused. */
    this.handle = handle;
    /** 'countdown', 'stopwatch', 'alarm' or 'calendar'. */
    this.kind = kind;
  }

  get engine() { return this.#owner.engine; }

  #call(fn, what, context, ...args) {
    try {
      return fn(this.#owner.raw, this.handle, ...args);
    } catch (error) {
      throw explain(error, what, { state: () => this.state, ...context });
    }
  }

  start() {
    if (this.#more !== null) this.#more.signal?.throwIfAborted();
    try {
      raw.start(this.#owner.raw, this.handle);
    } catch (error) {
      throw explain(error, 'timer.start()', { state: () => this.state });
    }
    this.#arm(true);
    return this;
  }

  suspend() {
    this.#call(raw.suspend, 'timer.suspend()');
    this.#owe();
    this.#arm(false);
    return this;
  }

  resume() {
    this.#call(raw.resume, 'timer.resume()');
    this.#arm(true);
    return this;
  }

  cancel() {
    this.#call(raw.cancel, 'timer.cancel()');
    this.#owe();
    this.#arm(false);
    this.#settle(null, () => canceled('cancelled'));
    return this;
  }

  /** Starts again from the full duration, cancelling a run under way
      (`finished` then waits for the new run). */
  restart() {
    const state = this.state;
    if (state === 'running' || state === 'suspended') this.#call(raw.cancel, 'timer.restart()');
    return this.start();
  }

  /** Adds seconds to a countdown's run (negative: shortens it). */
  adjust(seconds) {
    this.#call(raw.adjust, 'timer.adjust()', {
      value: seconds, rule: 'the new duration must stay above 0 and the time run, within 100 years',
    }, number(seconds, 'timer.adjust() seconds'));
    if (this.state === 'running') this.#arm(true); // a finished countdown runs again
    return this;
  }

  /** A calendar alarm: skips its next `count` rings (0: undoes a skip). */
  skip(count = 1) {
    if (!Number.isInteger(count) || count < 0 || count > 100000) {
      throw typeError(`timer.skip() count must be an integer from 0 to 100000, got ${String(count)}`);
    }
    this.#call(raw.skip, 'timer.skip()', { value: count, rule: 'only a calendar alarm skips rings' }, count);
    return this;
  }

  /** A calendar alarm: skips every ring before `when` (a Date or epoch ms). */
  skipUntil(when) {
    this.#call(raw.skipUntil, 'timer.skipUntil()', {
      value: when, rule: 'a calendar alarm skips until a time after now, within 100 years',
    }, unixSeconds(when, 'timer.skipUntil() when'));
    return this;
  }

  /** Records a lap; returns its length in seconds. */
  lap() {
    return this.#call(raw.lap, 'timer.lap()');
  }

  /** Frees the timer now; any later call on it throws TOCSIN_ENOENT. */
  free() {
    this.#call(raw.free, 'timer.free()');
    this._gone(() => canceled('freed'));
  }

  /** Keeps Node running until the timer is done (the default), as
      setTimeout's timers do; unref() lets Node exit before. */
  ref() { this.#flags &= ~UNREF; this.#update(); return this; }

  unref() { this.#flags |= UNREF; this.#update(); return this; }

  hasRef() { return (this.#flags & UNREF) === 0; }

  get state() { return STATES[this.#call(raw.state, 'timer.state')]; }

  get elapsed() { return this.#call(raw.elapsed, 'timer.elapsed'); }

  /** Seconds left (null for a stopwatch). */
  get remaining() { return orNull(this.#call(raw.remaining, 'timer.remaining')); }

  /** The run's duration in seconds (null for a stopwatch). */
  get duration() { return orNull(this.#call(raw.duration, 'timer.duration')); }

  get laps() { return this.#call(raw.laps, 'timer.laps'); }

  get label() { return this.#call(raw.label, 'timer.label'); }

  set label(text) {
    if (typeof text !== 'string') throw typeError(`timer.label must be a string, got ${typeof text}`);
    this.#call(raw.setLabel, 'timer.label', {
      value: text, rule: 'a label is at most 4096 bytes of UTF-8',
    }, text);
  }

  /** The tick interval in seconds (0: no ticks). */
  get tick() { return this.#more?.tick ?? 0; }

  set tick(seconds) {
    this.#call(raw.setTick, 'timer.tick', {
      value: seconds, rule: 'a tick interval is 0 (none) or above, at most 100 years',
    }, number(seconds, 'timer.tick'));
    this.#extra().tick = seconds;
    this.#update();
  }

  get tickPolicy() { return this.#more?.tickPolicy ?? 'every'; }

  set tickPolicy(policy) {
    this.#call(raw.setTickPolicy, 'timer.tickPolicy', {}, choice(TICK_POLICIES, policy, 'timer.tickPolicy'));
    this.#extra().tickPolicy = policy;
  }

  get leeway() { return this.#call(raw.leeway, 'timer.leeway'); }

  set leeway(seconds) {
    this.#call(raw.setLeeway, 'timer.leeway', {
      value: seconds, rule: 'a leeway is from 0 to 86400 seconds',
    }, number(seconds, 'timer.leeway'));
  }

  /** 'boot' (counts a suspend) or 'awake' (stands still through one). */
  get clock() { return CLOCKS[this.#call(raw.clock, 'timer.clock')]; }

  set clock(clock) {
    this.#call(raw.setClock, 'timer.clock', {
      value: clock, rule: "an alarm's clock is the wall clock: it cannot be 'awake'",
    }, choice(CLOCKS, clock, 'timer.clock'));
  }

  get wake() { return this.#call(raw.wake, 'timer.wake') === 1; }

  set wake(wake) {
    if (typeof wake !== 'boolean') throw typeError(`timer.wake must be a boolean, got ${typeof wake}`);
    this.#call(raw.setWake, 'timer.wake', {
      rule: "a stopwatch or an 'awake' timer cannot wake the machine",
    }, wake ? 1 : 0);
  }

  /** An alarm's or calendar alarm's coming time (null for other kinds). */
  get alarmTime() {
    return this.kind === 'alarm' || this.kind === 'calendar' ? dateOf(this.#call(raw.alarmTime, 'timer.alarmTime')) : null;
  }

  /** A calendar alarm's spec, normalized (null for other kinds). */
  get calendar() { return this.kind === 'calendar' ? this.#call(raw.calendarSpec, 'timer.calendar') : null; }

  /** The time before which a calendar alarm's rings are skipped, or null. */
  get skippedUntil() {
    const until = this.#call(raw.skippedUntil, 'timer.skippedUntil');
    return until === null ? null : dateOf(until);
  }

  /** Resolves with the FINISH event of the run (a calendar alarm: its next
      ring); rejects with code TOCSIN_CANCELED when the run is cancelled or
      the timer freed first, or with the signal's reason when aborted (at
      once if the signal was aborted already). */
  get finished() {
    if (this.#flags & FREED) return Promise.reject(canceled('freed'));
    const more = this.#extra();
    if (more.finish === null) {
      if (more.lastFinish !== null && !(this.#flags & ARMED) && this.state === 'finished') return Promise.resolve(more.lastFinish);
      // Aborted (before it was made, or since): no run will come.
      if (more.signal?.aborted) return Promise.reject(more.signal.reason);
      let resolve;
      let reject;
      const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
      more.finish = { promise, resolve, reject };
    }
    return more.finish.promise;
  }

  on(type, fn) { this.#listening().add(type, fn, false); this.#want(); return this; }

  once(type, fn) { this.#listening().add(type, fn, true); this.#want(); return this; }

  off(type, fn) { this.#more?.listeners?.remove(type, fn); this.#want(); return this; }

  /** Every event from now on, for `for await`: ends after the run's last
      event (state 'finished' or 'canceled') or when the timer is freed. */
  events() { return this.#listening().iterator(() => this.#want()); }

  #listening() {
    const more = this.#extra();
    if (more.listeners === null) more.listeners = new Listeners();
    return more.listeners;
  }

  #extra() {
    if (this.#more === null) this.#more = new More();
    return this.#more;
  }

  #want() {
    const listeners = this.#more?.listeners;
    if (!listeners) return;
    const bits = listeners.wanted();
    if (bits === this.#events || (this.#flags & FREED)) return;
    this.#call(raw.setEvents, 'timer.on()', {}, bits);
    this.#events = bits;
    if (!(bits & EVENTS.state) && (this.#flags & OWED)) { // nobody waits for it now
      this.#flags &= ~OWED;
      this.#update();
    }
  }

  /** A STATE event will come in a later dispatch: if someone listens or
      iterates, Node's loop is held until it does (else the process could
      exit, or an awaiting ES module end with exit 13, before it comes). */
  #owe() {
    if (this.#events & EVENTS.state) this.#flags |= OWED;
  }

  #arm(armed) {
    this.#flags = armed ? this.#flags | ARMED : this.#flags & ~ARMED;
    this.#update();
  }

  #update() {
    const flags = this.#flags;
    // Something may still come: an armed timer's events, an owed one.
    const fires = (flags & FREED) === 0 &&
      ((flags & OWED) !== 0 || ((flags & ARMED) !== 0 && (this.kind !== 'stopwatch' || this.tick > 0)));
    if (fires !== ((flags & KEEPING) !== 0)) {
      this.#flags ^= KEEPING;
      this.#owner.keep(fires ? 1 : -1);
    }
    const holds = fires && (flags & UNREF) === 0;
    if (holds === ((flags & HOLDING) !== 0)) return;
    this.#flags ^= HOLDING;
    this.#owner.hold(holds ? 1 : -1);
  }

  /** Resolves `finished` with the event, or rejects it with why() (made
      only when someone waits: an Error per timer costs a stack trace). */
  #settle(event, why) {
    const finish = this.#more?.finish;
    if (!finish) return;
    this.#more.finish = null;
    if (why) finish.reject(why());
    else finish.resolve(event);
  }

  // The engine's side (not for users): an event, the end of the timer, an
  // abort signal, the state of a restored timer.
  _deliver(kind, state, elapsed, remaining, tick, lateness, missed) {
    const event = {
      type: KINDS[kind], state: STATES[state], elapsed, remaining: orNull(remaining), tick, lateness, missed, timer: this,
    };
    if ((kind === STATE || kind === FINISH) && (this.#flags & OWED)) {
      this.#flags &= ~OWED;
      this.#update();
    }
    if (kind === FINISH) {
      this.#extra().lastFinish = event;
      if (state !== RUNNING) this.#arm(false);
      this.#settle(event, null);
    }
    if (this.#more?.listeners) this.#more.listeners.emit(event, this);
  }

  _gone(why) {
    if (this.#flags & FREED) return;
    this.#flags &= ~OWED;
    this.#arm(false);
    this.#flags |= FREED;
    this.#update();
    this.#owner.forget(this);
    const more = this.#more;
    if (more?.signal) more.signal.removeEventListener('abort', more.onAbort);
    this.#settle(null, why);
    more?.listeners?.endAll();
  }

  /** A restored timer: armed if running; one restored finished may have a
      held FINISH (then STATE) queued: the loop is held until it comes, or
      until a poll of the engine's fd has shown there was none. */
  _armIfRunning() {
    const state = raw.state(this.#owner.raw, this.handle);
    if (state === RUNNING) this.#arm(true);
    else if (STATES[state] === 'finished' && !this.#owner.manual) {
      this.#flags |= OWED;
      this.#update();
      // load() queued the held FINISH, if any, and signalled the engine's fd.
      // An immediate runs at the end of this loop iteration (perhaps before
      // its poll phase, if load() ran in a poll callback); one set from it
      // runs after the next iteration's poll phase, which read the fd.
      setImmediate(() => setImmediate(() => {
        if (!(this.#flags & OWED)) return;
        this.#flags &= ~OWED;
        this.#update();
      }));
    }
  }

  _abortWith(signal) {
    if (signal === undefined) return;
    if (!(signal instanceof AbortSignal)) throw typeError('options.signal must be an AbortSignal');
    const more = this.#extra();
    more.signal = signal;
    more.onAbort = () => {
      const state = raw.state(this.#owner.raw, this.handle);
      if (state === RUNNING || state === 2) {
        raw.cancel(this.#owner.raw, this.handle);
        this.#owe();
      }
      this.#arm(false);
      this.#settle(null, () => signal.reason);
    };
    signal.addEventListener('abort', more.onAbort, { once: true });
  }
}

/** A timer's rarely used state, apart so that a plain timer is small. */
class More {
  listeners = null; // a Listeners once anyone listens
  tick = 0;
  tickPolicy = 'every';
  finish = null; // { promise, resolve, reject } of `finished`
  lastFinish = null;
  signal = null;
  onAbort = null;
}

function orNull(seconds) {
  return seconds < 0 ? null : seconds;
}

module.exports = { Timer, MADE_BY_ENGINE };
