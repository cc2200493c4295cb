'use strict';
// The JavaScript API on a manual clock: exact times, no sleeping.
const test = require('node:test');
const assert = require('node:assert');
const { Engine, nextOccurrence, checkCalendar } = require('..');

const DAY = 86400;

test('suspend and resume keep the exact remainder', () => {
  const engine = new Engine({ manualClock: true });
  const tea = engine.countdown(180, { label: 'Tea' }).start();
  engine.advance(61_250);
  tea.suspend();
  assert.strictEqual(tea.remaining, 118.75);
  engine.advance(3_600_000); // an hour suspended: nothing moves
  assert.strictEqual(tea.remaining, 118.75);
  assert.strictEqual(tea.state, 'suspended');
  tea.resume();
  engine.advance(118_749);
  assert.strictEqual(tea.state, 'running');
  assert.ok(Math.abs(tea.remaining - 0.001) < 1e-9);
  engine.advance(1);
  assert.strictEqual(tea.state, 'finished');
  assert.strictEqual(tea.elapsed, 180);
  engine.close();
});

test("a 30-day countdown reports its remaining time (setTimeout's limit is 2^31-1 ms, 24.8 days)", () => {
  const thirtyDays = 30 * DAY;
  assert.ok(thirtyDays * 1000 > 2 ** 31 - 1, 'setTimeout would warn (TimeoutOverflowWarning) and fire after 1 ms');
  const manual = new Engine({ manualClock: true });
  const long = manual.countdown(thirtyDays).start();
  manual.advance(29 * DAY * 1000);
  assert.strictEqual(long.remaining, DAY);
  manual.advance(DAY * 1000);
  assert.strictEqual(long.state, 'finished');
  manual.close();
  // On the real clock too: started now, 30 days less a moment left.
  const real = new Engine();
  const timer = real.countdown(thirtyDays).start();
  assert.ok(timer.remaining <= thirtyDays && timer.remaining > thirtyDays - 1, String(timer.remaining));
  real.close();
});

test('await timer.finished resolves with the FINISH event; events() and on() see every event', async () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(3, { tick: 1 });
  const ticks = [];
  timer.on('tick', (event) => ticks.push(event.tick));
  const seen = [];
  const reading = (async () => {
    for await (const event of timer.events()) seen.push(`${event.type}:${event.state}`);
  })();
  const finished = timer.finished;
  timer.start();
  engine.advance(3000);
  const event = await finished;
  await reading;
  assert.strictEqual(event.type, 'finish');
  assert.strictEqual(event.timer, timer);
  assert.deepStrictEqual(ticks, [1, 2]);
  assert.deepStrictEqual(seen, ['state:running', 'tick:running', 'tick:running', 'finish:finished', 'state:finished']);
  engine.close();
});

test('events(): next() called again before the first settles answers each call in order, none lost', async () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(2, { tick: 1 });
  const events = timer.events();
  const calls = [events.next(), events.next(), events.next(), events.next(), events.next(), events.next()];
  timer.start();
  engine.advance(2000);
  const got = await Promise.all(calls);
  assert.deepStrictEqual(got.map((r) => (r.done ? 'done' : `${r.value.type}:${r.value.state}`)),
    ['state:running', 'tick:running', 'finish:finished', 'state:finished', 'done', 'done']);
  // return() while calls wait: each is told the end.
  const other = engine.countdown(5);
  const more = other.events();
  const waiting = [more.next(), more.next()];
  await more.return();
  assert.deepStrictEqual((await Promise.all(waiting)).map((r) => r.done), [true, true]);
  engine.close();
});

test('once() and off() take listeners away', () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.stopwatch({ tick: 1 }).start();
  const once = [];
  const always = [];
  const listener = (event) => always.push(event.tick);
  timer.once('tick', (event) => once.push(event.tick)).on('tick', listener);
  engine.advance(2000);
  timer.off('tick', listener);
  engine.advance(2000);
  assert.deepStrictEqual(once, [1]);
  assert.deepStrictEqual(always, [1, 2]);
  engine.close();
});

test('cancel rejects finished with TOCSIN_CANCELED; an AbortSignal cancels with its reason', async () => {
  const engine = new Engine({ manualClock: true });
  const cancelled = engine.countdown(10).start();
  const first = cancelled.finished;
  cancelled.cancel();
  await assert.rejects(first, { code: 'TOCSIN_CANCELED', name: 'AbortError' });

  const controller = new AbortController();
  const timer = engine.countdown(10, { signal: controller.signal }).start();
  const finished = timer.finished;
  engine.advance(4000);
  controller.abort(new Error('user left'));
  await assert.rejects(finished, { message: 'user left' });
  assert.strictEqual(timer.state, 'canceled');
  assert.throws(() => timer.start(), { message: 'user left' });

  const freed = engine.countdown(1);
  freed.free();
  await assert.rejects(freed.finished, { code: 'TOCSIN_CANCELED' }); // never a promise that waits for ever

  const aborted = AbortSignal.abort();
  const never = engine.countdown(1, { signal: aborted });
  assert.throws(() => never.start(), { name: 'AbortError' });
  // Its finished settles (it waited for ever, and an awaiting module never ended).
  await assert.rejects(never.finished, { name: 'AbortError' });
  engine.close();
});

test('restart, adjust and lap', () => {
  const engine = new Engine({ manualClock: true });
  const timer = engine.countdown(60).start();
  engine.advance(10_000);
  timer.adjust(30);
  assert.strictEqual(timer.remaining, 80);
  assert.strictEqual(timer.duration, 90);
  timer.restart();
  assert.strictEqual(timer.remaining, 60);
  const watch = engine.stopwatch().start();
  engine.advance(1500);
  assert.strictEqual(watch.lap(), 1.5);
  engine.advance(500);
  assert.strictEqual(watch.lap(), 0.5);
  assert.deepStrictEqual(watch.laps, [1.5, 0.5]);
  assert.strictEqual(watch.remaining, null);
  engine.close();
});

test('a calendar alarm rings on the wall clock, in Dates; skip and nextOccurrence', () => {
  const engine = new Engine({ manualClock: true });
  engine.setWallClock(new Date('2027-01-15T08:00:00Z')); // a Friday
  const standup = engine.calendar('Mon..Fri 09:30 UTC').start();
  assert.strictEqual(standup.calendar, 'Mon..Fri *-*-* 09:30:00 UTC');
  assert.deepStrictEqual(standup.alarmTime, new Date('2027-01-15T09:30:00Z'));
  const rings = [];
  standup.on('finish', (event) => rings.push(engine.wallClock.toISOString() + ` missed=${event.missed}`));
  engine.advance(90 * 60 * 1000);
  standup.skip(1); // not Monday
  assert.deepStrictEqual(standup.alarmTime, new Date('2027-01-19T09:30:00Z'));
  assert.deepStrictEqual(rings, ['2027-01-15T09:30:00.000Z missed=0']);
  assert.deepStrictEqual(nextOccurrence('Mon..Fri 09:30 UTC', new Date('2027-01-15T09:30:00Z')), new Date('2027-01-18T09:30:00Z'));
  assert.strictEqual(checkCalendar('daily'), '*-*-* 00:00:00');
  assert.throws(() => checkCalendar('Mun 07:00'), { code: 'TOCSIN_EINVAL', message: /column 1: 'Mun' is not a weekday/ });
  engine.close();
});

test('an alarm at a Date follows the wall clock; simulateSuspend stands awake timers still', () => {
  const engine = new Engine({ manualClock: true });
  engine.setWallClock(Date.UTC(2027, 0, 15, 8));
  const alarm = engine.alarm(new Date(Date.UTC(2027, 0, 15, 9))).start();
  const work = engine.countdown(3600, { clock: 'awake' }).start();
  const boot = engine.countdown(3600).start();
  engine.simulateSuspend(1_800_000);
  assert.strictEqual(work.remaining, 3600);
  assert.strictEqual(boot.remaining, 1800);
  assert.strictEqual(alarm.remaining, 1800);
  engine.setWallClock(Date.UTC(2027, 0, 15, 9, 0, 10));
  assert.strictEqual(alarm.state, 'finished');
  assert.strictEqual(engine.now, 1_800_000);
  engine.close();
});

test('a listener that throws during advance(): the rest are delivered, then advance() throws it', () => {
  const engine = new Engine({ manualClock: true });
  const a = engine.countdown(1).start();
  const b = engine.countdown(2).start();
  a.on('finish', () => { throw new Error('boom'); });
  let bFinished = false;
  b.on('finish', () => { bFinished = true; });
  assert.throws(() => engine.advance(5000), { message: 'boom' });
  assert.ok(bFinished);
  assert.strictEqual(engine.now, 5000);
  engine.close();
});

test('a listener calling advance() again: the outer advance() still throws what a later listener threw', () => {
  const engine = new Engine({ manualClock: true });
  const a = engine.countdown(1).start();
  const b = engine.countdown(2).start();
  let nested = null;
  a.on('finish', () => {
    try { engine.advance(0); } catch (error) { nested = error; }
  });
  b.on('finish', () => { throw new Error('from b'); });
  assert.throws(() => engine.advance(5000), { message: 'from b' });
  assert.strictEqual(nested?.code, 'TOCSIN_ESTATE');
  engine.close();
});

test('whatever a listener throws during advance() is thrown by it: a string, a number, undefined, or after close()', () => {
  for (const thrown of ['oops', 42, undefined, null]) {
    const engine = new Engine({ manualClock: true });
    engine.countdown(1).start().on('finish', () => { throw thrown; });
    let caught = 'nothing';
    try { engine.advance(2000); } catch (error) { caught = error; }
    assert.strictEqual(caught, thrown);
    engine.close();
  }
  // Timer a throws, then b's listener closes the engine: a's error stays.
  const engine = new Engine({ manualClock: true });
  engine.countdown(1).start().on('finish', () => { throw new Error('from a'); });
  engine.countdown(2).start().on('finish', () => engine.close());
  assert.throws(() => engine.advance(5000), { message: 'from a' });
  // A listener that closes the engine, then throws.
  const other = new Engine({ manualClock: true });
  other.countdown(1).start().on('finish', () => { other.close(); throw new Error('after close'); });
  assert.throws(() => other.advance(2000), { message: 'after close' });
  assert.ok(other.closed);
});

test('save and load: the timers come back as Timers of the right kind', (t) => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tocsin-node-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const engine = new Engine({ manualClock: true });
  engine.countdown(60, { label: 'Tea' }).start();
  engine.stopwatch();
  engine.setWallClock(1_800_000_000_000);
  engine.calendar('daily UTC');
  engine.alarm(1_800_000_600_000);
  engine.save(path.join(folder, 'timers.json'));
  engine.close();
  const again = new Engine({ manualClock: true });
  const restored = again.load(path.join(folder, 'timers.json'));
  assert.deepStrictEqual(restored.map((timer) => timer.kind), ['countdown', 'stopwatch', 'calendar', 'alarm']);
  assert.strictEqual(restored[0].label, 'Tea');
  assert.deepStrictEqual(again.timers(), restored);
  again.close();
});
