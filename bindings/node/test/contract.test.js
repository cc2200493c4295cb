'use strict';
// The addon against the contract's manifest (bindings/contract/abi.json):
// every tocsin_ name its C source uses is a function or type the header
// declares, every function of tocsin.h is used or listed here with the
// reason it is not, and the constants lib/values.js copies are the
// header's. (The types of each call are checked by the compiler: the
// Makefile builds src/ with -Werror against include/tocsin.h.)
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');
const raw = require('../lib/native.js');
const values = require('../lib/values.js');

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'contract', 'abi.json'), 'utf8'));
const SRC = path.join(__dirname, '..', 'src');
const source = fs.readdirSync(SRC).filter((name) => /\.[ch]$/.test(name))
  .map((name) => fs.readFileSync(path.join(SRC, name), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')).join('\n');
const used = new Set(source.match(/\btocsin_[a-z0-9_]+\b/g));
const functions = new Map(manifest.functions.map((fn) => [fn.name, fn]));
const typedefs = new Set(manifest.typedefs.map((typedef) => typedef.name));

const NOT_USED = {
  tocsin_version_hex: 'the version string (tocsin.version) says the same',
  tocsin_engine_close: 'close() frees the engine at once; the addon itself refuses calls on a closed Engine',
  tocsin_engine_add_observer: "events come through each timer's callback; an observer would have every STATE event queued",
  tocsin_engine_remove_observer: 'no observer is added',
  tocsin_countdown_start: 'countdown().start() makes the Timer first, so that it is known before its first event',
};

test('the manifest is the format this check reads', () => {
  assert.strictEqual(manifest.format, 1);
});

test('every tocsin_ function the addon calls is in the manifest, from tocsin.h', () => {
  const unknown = [...used].filter((name) => !typedefs.has(name) && functions.get(name)?.header !== 'tocsin.h');
  assert.deepStrictEqual(unknown, []);
});

test("every function of tocsin.h is called, or listed with the reason it is not", () => {
  const missing = manifest.functions.filter((fn) => fn.header === 'tocsin.h' && !used.has(fn.name) && !(fn.name in NOT_USED));
  assert.deepStrictEqual(missing.map((fn) => fn.name), []);
  for (const name of Object.keys(NOT_USED)) {
    assert.ok(functions.has(name), `${name} is listed as not used but is not in the manifest`);
    assert.ok(!used.has(name), `${name} is listed as not used but the addon calls it`);
  }
});

test('the library loaded is the version of the manifest', () => {
  assert.strictEqual(raw.version(), manifest.version.string);
});

function constant(name) {
  for (const group of manifest.enums) {
    const found = group.constants.find((c) => c.name === name);
    if (found) return found.value;
  }
  throw new Error(`${name} is not in the manifest`);
}

test("lib/values.js's words are the header's enums, in order", () => {
  values.STATES.forEach((state, i) => assert.strictEqual(constant(`TOCSIN_${state.toUpperCase()}`), i));
  values.CLOCKS.forEach((clock, i) => assert.strictEqual(constant(`TOCSIN_CLOCK_${clock.toUpperCase()}`), i));
  values.TICK_POLICIES.forEach((policy, i) => assert.strictEqual(constant(`TOCSIN_TICKS_${policy.toUpperCase()}`), i));
  values.KINDS.forEach((kind, i) => kind && assert.strictEqual(constant(`TOCSIN_EVENT_${kind.toUpperCase()}`), i));
  for (const [name, bits] of Object.entries(values.EVENTS)) assert.strictEqual(constant(`TOCSIN_EVENTS_${name.toUpperCase()}`), bits);
  assert.strictEqual(constant('TOCSIN_RUNNING'), values.RUNNING);
});

test("the addon's error codes and errno values are the manifest's", () => {
  const engine = raw.engineNew(true, () => {});
  try {
    const cases = [
      [() => raw.start(engine, 0n), 'TOCSIN_ENOENT'],
      [() => raw.countdown(engine, -1, 8), 'TOCSIN_EINVAL'],
      [() => raw.setWallClock(engine, -1), 'TOCSIN_EINVAL'],
      [() => raw.resume(engine, raw.stopwatch(engine, 8)), 'TOCSIN_ESTATE'],
      [() => { raw.setWallClock(engine, 1800000000); raw.calendar(engine, '2020-01-01', 8); }, 'TOCSIN_ERANGE'],
    ];
    const byName = new Map(manifest.errors.map((error) => [error.name, error]));
    for (const [call, code] of cases) {
      assert.throws(call, (error) => error.code === code && error.errno === byName.get(code).value &&
        error.message.endsWith(byName.get(code).text));
    }
  } finally {
    raw.engineClose(engine);
  }
  assert.throws(() => raw.now(engine), { code: 'TOCSIN_ECLOSED' });
});
