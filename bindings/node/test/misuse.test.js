'use strict';
// Misuse throws an Error with a code, never crashes the process: freed
// timers, closed engines, bad numbers, a huge label, wrong types, and the
// raw layer given things that are not its own.
const test = require('node:test');
const assert = require('node:assert');
const raw = require('../lib/native.js');
const { Engine, Timer, checkCalendar, nextOccurrence } = require('..');

const code = (name) => (error) => error instanceof Error && error.code === name && error.message.length > 0;

test('a freed timer and a closed engine throw, as often as asked', () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(5);
  timer.free();
  for (const use of [() => timer.start(), () => timer.state, () => timer.remaining, () => timer.free(), () => { timer.label = 'x'; }]) {
    assert.throws(use, code('TOCSIN_ENOENT'));
  }
  const other = engine.countdown(5).start();
  engine.close();
  engine.close(); // twice is allowed
  for (const use of [() => other.start(), () => other.state, () => engine.countdown(1), () => engine.advance(1), () => engine.now,
    () => engine.timers(), () => engine.save('/tmp/x')]) {
    assert.throws(use, code('TOCSIN_ECLOSED'));
  }
  assert.throws(() => other.start(), { message: 'timer.start(): the engine is closed' });
});

test('bad numbers: NaN, negative, infinite, too large, and misplaced calls', () => {
  const engine = new Engine({ manualClock: true });
  for (const seconds of [NaN, -1, 0, Infinity, 3155760000.5]) {
    assert.throws(() => engine.countdown(seconds), code('TOCSIN_EINVAL'));
  }
  assert.throws(() => engine.countdown(NaN), { message: 'engine.countdown(): seconds must be above 0 and at most 3155760000 (100 years), got NaN' });
  const timer = engine.countdown(10);
  for (const set of [() => { timer.tick = -1; }, () => { timer.leeway = 1e9; }, () => timer.adjust(NaN), () => engine.advance(-1),
    () => engine.setWallClock(new Date('nonsense')), () => engine.alarm(-5), () => timer.skip(1), () => timer.skip(-1)]) {
    assert.throws(set, code('TOCSIN_EINVAL'));
  }
  assert.throws(() => timer.resume(), { code: 'TOCSIN_ESTATE', message: 'timer.resume(): not allowed while the timer is idle' });
  const real = new Engine();
  assert.throws(() => real.advance(1), code('TOCSIN_ESTATE'));
  real.close();
  engine.close();
});

test('a label over 4096 bytes, or a broken calendar spec, is refused and changes nothing', () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(10, { label: 'Tea' });
  assert.throws(() => { timer.label = 'é'.repeat(2049); }, code('TOCSIN_EINVAL'));
  assert.strictEqual(timer.label, 'Tea');
  timer.label = 'x'.repeat(4096);
  assert.throws(() => engine.countdown(1, { label: 'y'.repeat(1 << 20) }), code('TOCSIN_EINVAL'));
  assert.strictEqual(engine.timers().length, 1, 'a timer whose options fail is freed');
  assert.throws(() => engine.calendar('Mon..Fri 25:00'), code('TOCSIN_EINVAL'));
  engine.close();
});

test('wrong types throw TypeErrors with code TOCSIN_EINVAL', () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(10);
  const calls = [
    () => engine.countdown('10'), () => engine.countdown(10n), () => engine.countdown(), () => engine.countdown({}),
    () => engine.countdown(1, { labl: 'typo' }), () => engine.countdown(1, null), () => engine.countdown(1, { clock: 'wall' }),
    () => engine.alarm('tomorrow'), () => engine.calendar(7), () => engine.advance('1'), () => engine.save(1),
    () => { timer.label = 5; }, () => { timer.tick = '1'; }, () => { timer.tickPolicy = 'some'; }, () => { timer.wake = 1; },
    () => timer.on('done', () => {}), () => timer.on('tick', 'not a function'), () => timer.skip(1.5),
    () => new Engine(5), () => new Engine({ manualClock: 'yes' }), () => new Timer(),
    () => engine.countdown(1, { signal: {} }),
  ];
  for (const call of calls) assert.throws(call, (error) => error instanceof TypeError && error.code === 'TOCSIN_EINVAL', String(call));
  engine.close();
});

test('a string with a NUL character is refused, not cut at it', () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(10, { label: 'before' });
  const nul = (error) => error instanceof TypeError && error.code === 'TOCSIN_EINVAL' && /NUL/.test(error.message);
  const fs = require('node:fs');
  const cut = `/tmp/tocsin-nul-${process.pid}`;
  assert.throws(() => engine.save(`${cut}\0y`), nul);
  assert.ok(!fs.existsSync(cut), 'saved to the path cut at the NUL');
  assert.throws(() => engine.load(`${cut}\0y`), nul);
  assert.throws(() => { timer.label = 'ab\0cd'; }, nul);
  assert.strictEqual(timer.label, 'before');
  assert.throws(() => engine.calendar('daily\0garbage'), nul);
  assert.throws(() => checkCalendar('daily\0garbage'), nul);
  assert.throws(() => nextOccurrence('daily\0garbage'), nul);
  assert.strictEqual(engine.timers().length, 1);
  engine.close();
});

test('the raw layer refuses what is not its own, without crashing', () => {
  const engine = raw.engineNew(true, () => {});
  const calls = [
    () => raw.start({}, 1n), () => raw.start(null, 1n), () => raw.start(engine, 1), () => raw.start(engine, -1n),
    () => raw.start(engine, 2n ** 64n), () => raw.countdown(engine, 'x', 8), () => raw.countdown(engine, 1, 'x'),
    () => raw.setLabel(engine, 1n, {}), () => raw.engineNew(true), () => raw.engineClose(5), () => raw.start(),
    () => raw.skip(engine, 1n, -1), () => raw.calendarNext(), () => raw.calendarCheck(Symbol('x')),
  ];
  for (const call of calls) assert.throws(call, (error) => error instanceof Error && typeof error.code === 'string', String(call));
  assert.throws(() => raw.start(engine, 0n), code('TOCSIN_ENOENT'));
  raw.engineClose(engine);
  raw.engineClose(engine); // twice
  assert.throws(() => raw.start(engine, 0n), code('TOCSIN_ECLOSED'));
});

test("another engine's timer is unknown here", () => {
  const a = new Engine({ manualClock: true });
  const b = new Engine({ manualClock: true });
  const timer = a.countdown(1);
  assert.throws(() => raw.start(require('../lib/engine.js').rawEngine(b), timer.handle), code('TOCSIN_ENOENT'));
  a.close();
  b.close();
});

test('closing the engine from inside a listener, during advance()', () => {
  const engine = new Engine({ manualClock: true });
  const first = engine.countdown(1).start();
  const second = engine.countdown(1).start();
  let calls = 0;
  first.on('finish', () => { calls++; engine.close(); });
  second.on('finish', () => { calls++; });
  engine.advance(2000);
  assert.strictEqual(calls, 1);
  assert.ok(engine.closed);
  assert.throws(() => second.state, code('TOCSIN_ECLOSED'));
});

test('freeing a timer from its own listener, on the real loop', async () => {
  const engine = new Engine();
  const timer = engine.countdown(0.02, { tick: 0.005 });
  const other = engine.countdown(0.05);
  await new Promise((resolve) => {
    timer.on('tick', () => { timer.free(); });
    // The engine goes on delivering after the free: another timer's finish comes.
    other.on('finish', resolve);
    timer.start();
    other.start();
  });
  assert.throws(() => timer.state, code('TOCSIN_ENOENT'));
  engine.close();
});
