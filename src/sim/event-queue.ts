/**
 * The simulator's agenda: a min-heap of events keyed by (time, seq). `seq` is the
 * order in which events were scheduled, so two events at the same virtual time run in the
 * order they were created — the tie-break that makes a run deterministic.
 *
 * An event is a function and up to two arguments rather than a closure, so the hot paths
 * (message arrivals, timers) allocate one object per event. Each event knows its place in
 * the heap, so cancelling one takes it out at once: a node's timer list cancels its event
 * whenever its last timer is cancelled — after every batch of answered calls — and left in
 * place those would make the heap several times deeper than the live events need.
 */

export interface SimEvent {
  /** Creation order: the tie-break between events at the same time. (The time itself lives
   * in the queue's `times`, so an event holds no boxed number.) */
  readonly seq: number;
  readonly run: (a: never, b: never) => void;
  readonly a: unknown;
  readonly b: unknown;
  /** Its position in the heap; -1 once it left it (ran or was cancelled). */
  index: number;
}

export interface EventQueue {
  /**
   * A 4-ary min-heap of events (shallower than a binary one: fewer moves per pop): the first
   * `size` slots; the rest are null. Counted rather than pushed and popped: Array push and pop
   * are calls into builtins, and the agenda does one of each per event.
   */
  heap: (SimEvent | null)[];
  size: number;
  /** times[i] is the time of heap[i]; kept apart so that sifting compares plain numbers. */
  times: Float64Array;
  nextSeq: number;
}

const INITIAL_CAPACITY = 256;

export function createEventQueue(): EventQueue {
  return {
    heap: new Array<SimEvent | null>(INITIAL_CAPACITY).fill(null),
    size: 0,
    times: new Float64Array(INITIAL_CAPACITY),
    nextSeq: 0,
  };
}

/** Events in the agenda. */
export function queueSize(q: EventQueue): number {
  return q.size;
}

/** Empties the agenda (the events' slots are cleared, so nothing they refer to is kept). */
export function clearQueue(q: EventQueue): void {
  q.heap.fill(null, 0, q.size);
  q.size = 0;
}

/** Removes and returns the last slot's event (the heap has at least one). */
function takeLast(q: EventQueue): SimEvent {
  const n = --q.size;
  const last = q.heap[n]!;
  q.heap[n] = null;
  return last;
}

/** Takes `ev` out of the agenda; harmless if it already ran or was cancelled. */
export function cancelEvent(q: EventQueue, ev: SimEvent): void {
  const i = ev.index;
  if (i < 0) return;
  ev.index = -1;
  const heap = q.heap;
  const last = takeLast(q);
  const n = q.size;
  if (i === n) return; // it was the last one
  const time = q.times[n]!;
  // The moved event goes up if it is earlier than its new parent, else down.
  if (i > 0) {
    const parent = (i - 1) >> 2;
    const pt = q.times[parent]!;
    if (time < pt || (time === pt && last.seq < heap[parent]!.seq)) {
      siftUp(q, i, last, time);
      return;
    }
  }
  siftDown(q, i, last, time);
}

export function pushEvent<A, B>(
  q: EventQueue,
  time: number,
  run: (a: A, b: B) => void,
  a: A,
  b: B,
): SimEvent {
  const ev: SimEvent = { seq: q.nextSeq++, run, a, b, index: -1 };
  insert(q, time, ev);
  return ev;
}

/**
 * An object that carries the event fields itself and is not in the agenda now (a call in
 * flight, see rpc.ts): it is pushed as its own event, numbered as a new one, and allocates
 * nothing. Only calls do this: the heap's loads of `seq` and `index` are fast while its
 * objects have few shapes, and raft's messages as own events too (five shapes) made
 * sim:consensus 5% and sim:zk 17% slower.
 */
export interface OwnEvent {
  seq: number;
  run: (a: never, b: never) => void;
  a: unknown;
  b: unknown;
  index: number;
}

/** The `run` of an own event that is not in the agenda now. */
export const notRun = (): void => {};

export function pushOwnEvent<A, B>(
  q: EventQueue,
  time: number,
  ev: OwnEvent,
  run: (a: A, b: B) => void,
  a: A,
  b: B,
): void {
  // Twice in the heap would corrupt it: a message is sent again only after it arrived.
  if (ev.index >= 0) throw new Error("sim: a message that is its own event was sent again while in flight");
  ev.seq = q.nextSeq++;
  ev.run = run as OwnEvent["run"];
  ev.a = a;
  ev.b = b;
  insert(q, time, ev);
}

/** Puts `ev` (not in the agenda now: it ran or was cancelled) back at `time`, numbered as a new event. */
export function pushAgain(q: EventQueue, time: number, ev: SimEvent): void {
  if (ev.index >= 0) throw new Error("sim: an event was put back in the agenda while still in it");
  (ev as { seq: number }).seq = q.nextSeq++;
  insert(q, time, ev);
}

function insert(q: EventQueue, time: number, ev: SimEvent): void {
  const i = q.size;
  if (i === q.times.length) grow(q);
  q.size = i + 1;
  siftUp(q, i, ev, time);
}

/** Places `ev` (due at `time`) at position `start` or above, moving later parents down. */
function siftUp(q: EventQueue, start: number, ev: SimEvent, time: number): void {
  const heap = q.heap;
  const times = q.times;
  let i = start;
  // New events are almost always later than their parents: the loop usually stops at once.
  while (i > 0) {
    const parent = (i - 1) >> 2;
    const pt = times[parent]!;
    const pe = heap[parent]!;
    if (pt < time || (pt === time && pe.seq < ev.seq)) break;
    heap[i] = pe;
    pe.index = i;
    times[i] = pt;
    i = parent;
  }
  heap[i] = ev;
  ev.index = i;
  times[i] = time;
}

function grow(q: EventQueue): void {
  const capacity = q.times.length * 2;
  const times = new Float64Array(capacity);
  times.set(q.times);
  q.times = times;
  const heap = new Array<SimEvent | null>(capacity).fill(null);
  for (let i = 0; i < q.size; i++) heap[i] = q.heap[i]!;
  q.heap = heap;
}

/** The earliest event, without removing it. */
export function peekEvent(q: EventQueue): SimEvent | undefined {
  return q.size === 0 ? undefined : q.heap[0]!;
}

/** The time of the event peekEvent returned. */
export function topTime(q: EventQueue): number {
  return q.times[0]!;
}

/** Removes the earliest event (call after peekEvent returned it). */
export function dropTop(q: EventQueue): void {
  q.heap[0]!.index = -1;
  const last = takeLast(q);
  const n = q.size;
  if (n > 0) siftDown(q, 0, last, q.times[n]!);
}

/** Places `ev` (due at `time`) at position `start` or below, moving earlier children up. */
function siftDown(q: EventQueue, start: number, ev: SimEvent, time: number): void {
  const heap = q.heap;
  const times = q.times;
  const n = q.size;
  let i = start;
  for (;;) {
    const first = 4 * i + 1;
    if (first >= n) break;
    // The earliest of up to four children.
    let child = first;
    let ct = times[first]!;
    const end = Math.min(first + 4, n);
    for (let c = first + 1; c < end; c++) {
      const t = times[c]!;
      if (t < ct || (t === ct && heap[c]!.seq < heap[child]!.seq)) {
        child = c;
        ct = t;
      }
    }
    if (time < ct || (time === ct && ev.seq < heap[child]!.seq)) break;
    const ce = heap[child]!;
    heap[i] = ce;
    ce.index = i;
    times[i] = ct;
    i = child;
  }
  heap[i] = ev;
  ev.index = i;
  times[i] = time;
}
