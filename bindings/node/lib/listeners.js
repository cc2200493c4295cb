'use strict';
// A timer's listeners (`timer.on('tick', fn)`) and async iterators
// (`timer.events()`): kept apart from the Timer so that it only asks which
// kinds of event anyone wants (the engine then queues no others).
const { EVENTS } = require('./values.js');

const TYPES = ['tick', 'state', 'finish', 'event'];

class Listeners {
  #byType = new Map(); // type -> array of { fn, once }, replaced on change
  #sinks = new Set(); // the queues of open events() iterators

  add(type, fn, once) {
    if (!TYPES.includes(type)) {
      const error = new TypeError(`timer.on(): the event must be ${TYPES.map((t) => `'${t}'`).join(', ')}, got ${String(type)}`);
      error.code = 'TOCSIN_EINVAL';
      throw error;
    }
    if (typeof fn !== 'function') {
      const error = new TypeError(`timer.on('${type}'): the listener must be a function`);
      error.code = 'TOCSIN_EINVAL';
      throw error;
    }
    this.#byType.set(type, [...(this.#byType.get(type) ?? []), { fn, once }]);
  }

  remove(type, fn) {
    const list = this.#byType.get(type);
    if (!list) return;
    const at = list.findIndex((entry) => entry.fn === fn);
    if (at >= 0) this.#byType.set(type, list.filter((_, i) => i !== at));
  }

  /** The TOCSIN_EVENTS_* bits wanted: FINISH always (the Timer needs it). */
  wanted() {
    const all = this.#sinks.size > 0 || this.#has('event');
    return EVENTS.finish | (all || this.#has('tick') ? EVENTS.tick : 0) | (all || this.#has('state') ? EVENTS.state : 0);
  }

  #has(type) {
    return (this.#byType.get(type)?.length ?? 0) > 0;
  }

  /** Calls the listeners of the event's type, then those of 'event', then
      feeds the iterators. A listener that throws stops this event's round. */
  emit(event, timer) {
    for (const type of [event.type, 'event']) {
      const list = this.#byType.get(type);
      if (!list) continue;
      if (list.some((entry) => entry.once)) this.#byType.set(type, list.filter((entry) => !entry.once));
      for (const { fn } of list) fn.call(timer, event);
    }
    for (const sink of this.#sinks) sink.push(event);
  }

  /** An async iterator over the events from now on; it ends after the run's
      last event (STATE finished or canceled), or when the timer is freed. */
  iterator(onChange) {
    const queue = [];
    const waiting = []; // the resolves of next() calls not yet answered, in order
    let ended = false;
    const sinks = this.#sinks;
    const sink = {
      push(event) {
        if (ended) return;
        if (event.type === 'state' && (event.state === 'finished' || event.state === 'canceled')) {
          ended = true; // after this event
          sinks.delete(sink);
          onChange();
        }
        if (waiting.length > 0) {
          waiting.shift()({ value: event, done: false });
        } else {
          queue.push(event);
        }
        // The last event: next() calls beyond it are told the end.
        if (ended) for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
      },
      end() {
        ended = true;
        sinks.delete(sink);
        for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
      },
    };
    sinks.add(sink);
    onChange();
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next() {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
        if (ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => { waiting.push(resolve); });
      },
      return() {
        queue.length = 0;
        sink.end();
        onChange();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /** The timer is gone: every iterator ends. */
  endAll() {
    for (const sink of [...this.#sinks]) sink.end();
  }
}

module.exports = { Listeners };
