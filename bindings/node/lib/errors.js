'use strict';
// The engine's status codes come from the addon as Errors whose `code` is
// the C name ('TOCSIN_ESTATE') and `errno` the C value; here their message
// is rewritten to name the call, the value and the timer's state.
const { describe } = require('./values.js');

/**
 * The addon's error with a message that says what went wrong in the
 * caller's terms: `what` is the call ("timer.start()"), `context` may give
 * `value` (the argument refused), `rule` (what the argument must be, or a
 * function that says it) and
 * `state` (a function giving the timer's state, asked only if needed).
 */
function explain(error, what, context = {}) {
  if (!(error instanceof Error) || typeof error.code !== 'string' || !error.code.startsWith('TOCSIN_')) return error;
  if (error instanceof TypeError) return error;
  const shown = 'value' in context ? `, got ${describe(context.value)}` : '';
  switch (error.code) {
    case 'TOCSIN_EINVAL':
      error.message = `${what}: ${(typeof context.rule === 'function' ? context.rule() : context.rule) ?? 'invalid argument'}${shown}`;
      break;
    case 'TOCSIN_ENOENT':
      error.message = `${what}: no such timer in this engine (it was freed, or made by another engine)`;
      break;
    case 'TOCSIN_ECLOSED':
      error.message = `${what}: the engine is closed`;
      break;
    case 'TOCSIN_ESTATE': {
      const state = stateOf(context.state);
      error.message = state ? `${what}: not allowed while the timer is ${state}` : `${what}: not allowed in this engine's mode`;
      break;
    }
    default:
      error.message = `${what}: ${error.message.replace(/^[^:]*: /, '')}${shown}`;
  }
  return error;
}

function stateOf(get) {
  try {
    return get?.();
  } catch {
    return undefined;
  }
}

/** The rejection of `timer.finished` when the run ends without a FINISH. */
function canceled(what) {
  const error = new Error(`the timer was ${what} before it finished`);
  error.name = 'AbortError';
  error.code = 'TOCSIN_CANCELED';
  return error;
}

module.exports = { explain, canceled };
