'use strict';
// Reads a scenario file (bindings/contract/README.md) into checked lines,
// as the C runner's scenario_parse.c and the Python runner's
// scenario_file.py do: the whole file first, every fault a ScenarioError
// naming FILE:LINE.
const fs = require('node:fs');
const path = require('node:path');

const STATES = ['idle', 'running', 'suspended', 'finished', 'canceled'];
const CLOCKS = ['boot', 'awake'];
const POLICIES = ['every', 'coalesce'];
const KINDS = { tick: 1, state: 2, finish: 3 };
const EVENT_FIELDS = ['elapsed', 'remaining', 'lateness', 'missed', 'tick'];
const ERRORS = ['OK', 'EINVAL', 'ENOENT', 'ESTATE', 'ENOMEM', 'EIO', 'ECORRUPT', 'ECLOSED', 'EUNAVAILABLE', 'ERANGE'];

// Forms as in scenario_parse.c: B binds a name, N a bound name, n NUMBER,
// c COUNT, s STRING, f FILE, S STATE, C CLOCK, P POLICY, E ERROR,
// x NUMBER or none, v EVENT, o NAME/EVENT; '*' repeats the form before it.
const STEPS = {
  countdown: 'Bn', stopwatch: 'B', alarm: 'Bn', calendar: 'Bs', start: 'N', suspend: 'N', resume: 'N',
  cancel: 'N', free: 'N', adjust: 'Nn', tick: 'Nn', 'tick-policy': 'NP', leeway: 'Nn', clock: 'NC',
  label: 'Ns', lap: 'N', skip: 'Nc', 'skip-until': 'Nn', advance: 'n', 'suspend-machine': 'n',
  'set-wall-clock': 'n', save: 'f', load: 'fB*', 'new-engine': '',
};
const EXPECTATIONS = {
  error: 'E', result: 'n', state: 'NS', elapsed: 'Nn', remaining: 'Nn', duration: 'Nn', laps: 'Nn*',
  label: 'Ns', clock: 'NC', leeway: 'Nn', 'alarm-time': 'Nn', calendar: 'Ns', 'skipped-until': 'Nx',
  now: 'n', 'wall-clock': 'n', timers: 'c', events: 'Nv*', order: 'o*',
};
const NUMBER = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const FILE = /^[A-Za-z0-9_.-]+$/;
const TOLERANCE = 1e-6;

class ScenarioError extends Error {}

function number(token) {
  const words = { nan: NaN, inf: Infinity, '-inf': -Infinity };
  if (token in words) return words[token];
  if (!NUMBER.test(token)) throw new Error(`'${token}' is not a NUMBER`);
  return Number(token);
}

function same(got, expected) {
  if (Number.isNaN(got) || Number.isNaN(expected)) return Number.isNaN(got) && Number.isNaN(expected);
  if (!Number.isFinite(got) || !Number.isFinite(expected)) return got === expected;
  return Math.abs(got - expected) <= TOLERANCE;
}

/** An EVENT token: { kind, detail (or null), fields }. */
function event(token) {
  const [head, ...fields] = token.split(',');
  const colon = head.indexOf(':');
  const kind = colon < 0 ? head : head.slice(0, colon);
  const detail = colon < 0 ? '' : head.slice(colon + 1);
  if (!(kind in KINDS)) throw new Error(`'${token}' is not an EVENT`);
  const parsed = { kind: KINDS[kind], detail: null, fields: {} };
  if (colon >= 0) {
    if (kind === 'state' && STATES.includes(detail)) parsed.detail = STATES.indexOf(detail);
    else if (kind === 'tick') parsed.detail = number(detail);
    else throw new Error(`'${token}' is not an EVENT`);
  }
  for (const item of fields) {
    const equals = item.indexOf('=');
    const name = equals < 0 ? item : item.slice(0, equals);
    if (equals < 0 || !EVENT_FIELDS.includes(name)) throw new Error(`'${token}' is not an EVENT`);
    parsed.fields[name] = number(item.slice(equals + 1));
  }
  return parsed;
}

function tokenize(text) {
  const tokens = [];
  let at = 0;
  for (;;) {
    while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++;
    if (at === text.length || text[at] === '#') return tokens;
    if (text[at] === '"') {
      let value = '';
      at++;
      for (;;) {
        if (at === text.length) throw new Error('a quoted string is not closed');
        if (text[at] === '"') break;
        if (text[at] === '\\') {
          at++;
          if (at === text.length || (text[at] !== '"' && text[at] !== '\\')) {
            throw new Error('only \\" and \\\\ are allowed in a quoted string');
          }
        }
        value += text[at++];
      }
      at++;
      if (at < text.length && text[at] !== ' ' && text[at] !== '\t') throw new Error('a closing quote must end the token');
      tokens.push({ text: value, quoted: true });
    } else {
      let end = at;
      while (end < text.length && text[end] !== ' ' && text[end] !== '\t') {
        if (text[end] === '"') throw new Error('a quote inside a word');
        end++;
      }
      tokens.push({ text: text.slice(at, end), quoted: false });
      at = end;
    }
  }
}

function check(token, form, names) {
  const { text } = token;
  if (token.quoted !== (form === 's')) {
    throw new Error(form === 's' ? `'${text}' must be a quoted string` : `"${text}" must not be quoted`);
  }
  if (form === 'B') {
    if (!NAME.test(text)) throw new Error(`'${text}' is not a timer name`);
    if (names.has(text)) throw new Error(`'${text}' is bound already`);
    names.add(text);
  } else if (form === 'N') {
    if (!names.has(text)) throw new Error(`no timer named '${text}'`);
  } else if (form === 'n' || (form === 'x' && text !== 'none')) {
    number(text);
  } else if (form === 'v') {
    event(text);
  } else if (form === 'o') {
    const slash = text.indexOf('/');
    if (slash < 0) throw new Error(`'${text}' is not NAME/EVENT`);
    event(text.slice(slash + 1));
    if (!names.has(text.slice(0, slash))) throw new Error(`no timer named '${text.slice(0, slash)}'`);
  } else if ('cfSCPE'.includes(form)) {
    const allowed = {
      c: () => /^[0-9]+$/.test(text), f: () => FILE.test(text), S: () => STATES.includes(text),
      C: () => CLOCKS.includes(text), P: () => POLICIES.includes(text), E: () => ERRORS.includes(text),
    }[form];
    if (!allowed()) throw new Error(`'${text}' is not valid here`);
  }
}

/** Every line with tokens, checked: [{ number, text, tokens, isExpect,
    errorChecked }], or a ScenarioError("FILE:LINE: parse error: ..."). */
function read(file) {
  const name = path.basename(file);
  let source;
  try {
    source = new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(file));
  } catch (error) {
    throw new ScenarioError(`${name}: ${error.message}`);
  }
  const lines = [];
  const names = new Set();
  let lastStep = null;
  source.split('\n').forEach((raw, index) => {
    const text = raw.replace(/^[ \t\r]+|[ \t\r]+$/g, '');
    let tokens;
    let word;
    let isExpect;
    try {
      tokens = tokenize(text);
      if (tokens.length === 0) return;
      isExpect = tokens[0].text === 'expect' && !tokens[0].quoted;
      const first = isExpect ? 2 : 1;
      if (tokens.length < first) throw new Error('expect what?');
      const table = isExpect ? EXPECTATIONS : STEPS;
      word = tokens[first - 1];
      if (word.quoted || !Object.hasOwn(table, word.text)) {
        throw new Error(`unknown ${isExpect ? 'expectation' : 'step'} '${word.text}'`);
      }
      const forms = table[word.text];
      const fixed = forms.split('*')[0];
      const given = tokens.slice(first);
      if ((forms.includes('*') && given.length < fixed.length - 1) || (!forms.includes('*') && given.length !== fixed.length)) {
        throw new Error(`'${word.text}' takes ${fixed.length} arguments, got ${given.length}`);
      }
      given.forEach((token, at) => check(token, at < fixed.length ? fixed[at] : fixed[fixed.length - 1], names));
      if (isExpect && (word.text === 'error' || word.text === 'result') && lastStep === null) {
        throw new Error(`'expect ${word.text}' before any step`);
      }
    } catch (error) {
      throw new ScenarioError(`${name}:${index + 1}: parse error: ${error.message}`);
    }
    const line = { number: index + 1, text, tokens: tokens.map((t) => t.text), isExpect, errorChecked: false };
    if (!isExpect) lastStep = line;
    else if (word.text === 'error' && lastStep !== null) lastStep.errorChecked = true;
    lines.push(line);
  });
  return lines;
}

module.exports = { read, number, same, event, ScenarioError, STATES, CLOCKS, POLICIES, EVENT_FIELDS };
