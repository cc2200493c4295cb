'use strict';
// Tocsin for Node.js: timers that survive a suspend, on Node's own loop.
// The API is described in index.d.ts and the project's README ("Using it
// from Node.js"); the C library's manual is include/tocsin.h.
const raw = require('./lib/native.js');
const { Engine } = require('./lib/engine.js');
const { Timer } = require('./lib/timer.js');
const { explain } = require('./lib/errors.js');
const { unixSeconds, dateOf, typeError } = require('./lib/values.js');

/** The next time a calendar spec occurs after `after` (a Date or epoch ms; now by default). */
function nextOccurrence(spec, after = Date.now()) {
  if (typeof spec !== 'string') throw typeError('nextOccurrence() spec must be a string');
  try {
    return dateOf(raw.calendarNext(spec, unixSeconds(after, 'nextOccurrence() after')));
  } catch (error) {
    throw explain(error, 'nextOccurrence()', { value: spec, rule: () => checkReason(spec) });
  }
}

/** A calendar spec in its normalized form ('Mon..Fri *-*-* 07:00:00'); a
    bad one throws TOCSIN_EINVAL with the column at fault. */
function checkCalendar(spec) {
  if (typeof spec !== 'string') throw typeError('checkCalendar() spec must be a string');
  return raw.calendarCheck(spec);
}

function checkReason(spec) {
  try {
    raw.calendarCheck(spec);
    return 'no occurrence after that time';
  } catch (error) {
    return error.message;
  }
}

module.exports = { Engine, Timer, nextOccurrence, checkCalendar, version: raw.version() };
