// A small typed program for `tsc --noEmit` (test/types.test.js): it must
// compile against index.d.ts, and the lines marked @ts-expect-error must not.
import { Engine, Timer, TimerEvent, TocsinError, nextOccurrence, version } from 'tocsin';

async function main(): Promise<void> {
  const engine = new Engine({ manualClock: true });
  const tea: Timer = engine.countdown(180, { label: 'Tea', tick: 60, clock: 'awake' }).start();
  tea.on('tick', function (event: TimerEvent) {
    const left: number | null = event.remaining;
    console.log(this.label, event.tick, left);
  });
  engine.advance(180_000);
  const done: TimerEvent = await tea.finished;
  for await (const event of engine.stopwatch().events()) {
    console.log(event.type, event.state);
    break;
  }
  const standup = engine.calendar('Mon..Fri 09:30', { signal: new AbortController().signal });
  const next: Date | null = standup.alarmTime;
  const when: Date = nextOccurrence('daily', Date.now());
  try {
    engine.countdown(-1);
  } catch (error) {
    console.log((error as TocsinError).code);
  }
  // @ts-expect-error seconds are numbers
  engine.countdown('10');
  // @ts-expect-error no such state
  const wrong: Timer['state'] = 'paused';
  // @ts-expect-error no such event
  tea.on('done', () => {});
  console.log(done.lateness, next, when, version, wrong);
  engine.close();
}

void main();
