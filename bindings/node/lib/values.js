'use strict';
// The C enums in JavaScript's words (strings), and the conversions at the
// edge: Dates and epoch milliseconds to Unix seconds and back.

const STATES = ['idle', 'running', 'suspended', 'finished', 'canceled'];
const KINDS = [undefined, 'tick', 'state', 'finish'];
const CLOCKS = ['boot', 'awake'];
const TICK_POLICIES = ['every', 'coalesce'];
const EVENTS = { tick: 2, state: 4, finish: 8, all: 14 }; // TOCSIN_EVENTS_*
const RUNNING = 1;

/** A Date or epoch milliseconds as Unix seconds (NaN for an invalid Date:
    the engine refuses it). */
function unixSeconds(when, what) {
  if (when instanceof Date) return when.getTime() / 1000;
  if (typeof when === 'number') return when / 1000;
  throw typeError(`${what} must be a Date or epoch milliseconds, got ${describe(when)}`);
}

function dateOf(seconds) {
  return new Date(seconds * 1000);
}

/** One of a list of words: its index, or a TypeError naming the choices. */
function choice(words, value, what) {
  const index = typeof value === 'string' ? words.indexOf(value) : -1;
  if (index < 0) throw typeError(`${what} must be ${words.map((w) => `'${w}'`).join(' or ')}, got ${describe(value)}`);
  return index;
}

function number(value, what) {
  if (typeof value !== 'number') throw typeError(`${what} must be a number, got ${describe(value)}`);
  return value;
}

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : `an object (${value.constructor?.name ?? 'null prototype'})`;
}

function typeError(message) {
  const error = new TypeError(message);
  error.code = 'TOCSIN_EINVAL';
  return error;
}

module.exports = {
  STATES, KINDS, CLOCKS, TICK_POLICIES, EVENTS, RUNNING,
  unixSeconds, dateOf, choice, number, describe, typeError,
};
