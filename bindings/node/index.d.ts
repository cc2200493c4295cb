// Types of Tocsin for Node.js (index.js, index.mjs). Durations of a timer
// are seconds; the engine's clock calls (advance, simulateSuspend, now) are
// milliseconds, as Node's clocks; times of day are Dates or epoch ms.

/** A timer's state. */
export type State = 'idle' | 'running' | 'suspended' | 'finished' | 'canceled';
/** 'boot' counts time the machine spends suspended; 'awake' stands still through it. */
export type Clock = 'boot' | 'awake';
export type TickPolicy = 'every' | 'coalesce';
export type Kind = 'countdown' | 'stopwatch' | 'alarm' | 'calendar';
/** A Date, or milliseconds since 1970-01-01 00:00 UTC. */
export type When = Date | number;

/** One event of a timer, passed to its listeners and iterators. */
export interface TimerEvent {
  type: 'tick' | 'state' | 'finish';
  /** The timer's state after this event. */
  state: State;
  /** Seconds of running time (on a tick: exactly tick × interval). */
  elapsed: number;
  /** Seconds left (0 on a finish); null for a stopwatch. */
  remaining: number | null;
  /** The tick's number from 1 (0 on other events). */
  tick: number;
  /** Seconds from the due time to the delivery; never negative. */
  lateness: number;
  /** Ticks folded into a coalesced tick, or calendar occurrences passed over. */
  missed: number;
  timer: Timer;
}

export interface TimerOptions {
  label?: string;
  /** Tick interval in seconds (0: none). */
  tick?: number;
  tickPolicy?: TickPolicy;
  /** Only while idle; alarms are always on the wall clock. */
  clock?: Clock;
  /** Seconds the timer's events may come late, to share wake-ups (0 to 86400). */
  leeway?: number;
  /** Wake a suspended machine for it (where the process may: engine.canWake). */
  wake?: boolean;
  /** Aborting it cancels the timer and rejects `finished` with its reason;
      one aborted already: `start()` throws its reason and `finished`
      rejects with it. */
  signal?: AbortSignal;
}

/** An Error from the engine or the binding: `code` is 'TOCSIN_EINVAL',
    'TOCSIN_ENOENT', 'TOCSIN_ESTATE', 'TOCSIN_ECLOSED', 'TOCSIN_ERANGE',
    'TOCSIN_EIO', …, or 'TOCSIN_CANCELED' for `finished` of a cancelled run. */
export interface TocsinError extends Error {
  code: string;
  /** The C status (negative) where the engine gave one. */
  errno?: number;
}

export class Timer {
  private constructor();
  /** The C handle, unique in its engine. */
  readonly handle: bigint;
  readonly kind: Kind;
  readonly engine: Engine;
  start(): this;
  suspend(): this;
  resume(): this;
  cancel(): this;
  /** Cancels a run under way, then starts again from the full duration. */
  restart(): this;
  /** Adds seconds to a countdown's run (negative shortens it). */
  adjust(seconds: number): this;
  /** A calendar alarm: skips its next `count` rings (0 undoes a skip). */
  skip(count?: number): this;
  skipUntil(when: When): this;
  /** Records a lap; returns its length in seconds. */
  lap(): number;
  free(): void;
  ref(): this;
  unref(): this;
  hasRef(): boolean;
  readonly state: State;
  readonly elapsed: number;
  readonly remaining: number | null;
  readonly duration: number | null;
  readonly laps: number[];
  label: string;
  tick: number;
  tickPolicy: TickPolicy;
  leeway: number;
  clock: Clock;
  wake: boolean;
  readonly alarmTime: Date | null;
  readonly calendar: string | null;
  readonly skippedUntil: Date | null;
  /** The FINISH event of this run (of a calendar alarm: its next ring). */
  readonly finished: Promise<TimerEvent>;
  on(type: 'tick' | 'state' | 'finish' | 'event', listener: (this: Timer, event: TimerEvent) => void): this;
  once(type: 'tick' | 'state' | 'finish' | 'event', listener: (this: Timer, event: TimerEvent) => void): this;
  off(type: 'tick' | 'state' | 'finish' | 'event', listener: (this: Timer, event: TimerEvent) => void): this;
  /** Every event from now on; ends after the run's last one or when the timer is freed. */
  events(): AsyncIterableIterator<TimerEvent>;
}

export interface EngineOptions {
  /** Time moves only by advance(), simulateSuspend() and setWallClock(). */
  manualClock?: boolean;
}

export class Engine {
  constructor(options?: EngineOptions);
  readonly manualClock: boolean;
  countdown(seconds: number, options?: TimerOptions): Timer;
  stopwatch(options?: TimerOptions): Timer;
  alarm(when: When, options?: TimerOptions): Timer;
  /** A systemd.time(7) calendar spec: 'Mon..Fri 07:00', 'daily Europe/Berlin'. */
  calendar(spec: string, options?: TimerOptions): Timer;
  timers(): Timer[];
  /** Manual clock: milliseconds on; returns how many events were delivered. */
  advance(ms: number): number;
  simulateSuspend(ms: number): number;
  setWallClock(when: When): number;
  /** The engine's clock in milliseconds. */
  readonly now: number;
  readonly wallClock: Date;
  readonly canWake: boolean;
  readonly wakeReason: string;
  save(path: string): void;
  load(path: string): Timer[];
  readonly closed: boolean;
  close(): void;
}

/** The next occurrence of a calendar spec after `after` (default: now). */
export function nextOccurrence(spec: string, after?: When): Date;
/** The spec's normalized form; throws TOCSIN_EINVAL naming the column at fault. */
export function checkCalendar(spec: string): string;
/** libtocsin's version ("0.8.0"). */
export const version: string;
