/**
 * The simulator's agenda: a min-heap of events keyed by (time, seq). `seq` is the
 * order in which events were scheduled, so two events at the same virtual time run in the
 * order they were created — the tie-break that makes a run deterministic.
 *
 * An event is a function and up to two arguments rather than a closure, so the hot paths
 * (message arrivals, timers) allocate one object per event. Cancelling an event only marks
 * it; the heap drops it when it reaches the top, or rebuilds itself without the cancelled
 * ones once they are the majority (a node's timer list cancels its event whenever its last
 * timer is cancelled — after every batch of answered calls — and with long call timeouts
 * those would otherwise pile up).
 */

export interface SimEvent {
  /** Creation order: the tie-break between events at the same time. (The time itself lives
   * in the queue's `times`, so an event holds no boxed number.) */
  readonly seq: number;
  readonly run: (a: never, b: never) => void;
  readonly a: unknown;
  readonly b: unknown;
  cancelled: boolean;
}

export interface EventQueue {
  /** A 4-ary min-heap of events (shallower than a binary one: fewer moves per pop). */
  heap: SimEvent[];
  /** times[i] is the time of heap[i]; kept apart so that sifting compares plain numbers. */
  times: Float64Array;
  nextSeq: number;
  /** Cancelled events still in the heap. */
  cancelled: number;
}

export function createEventQueue(): EventQueue {
  return { heap: [], times: new Float64Array(256), nextSeq: 0, cancelled: 0 };
}

export function cancelEvent(q: EventQueue, ev: SimEvent): void {
  if (ev.cancelled) return;
  ev.cancelled = true;
  q.cancelled++;
  if (q.cancelled > 256 && q.cancelled * 2 > q.heap.length) compact(q);
}

/** Drops every cancelled event and rebuilds the heap (Floyd's heapify, O(n)). */
function compact(q: EventQueue): void {
  const { heap, times } = q;
  let n = 0;
  for (let i = 0; i < heap.length; i++) {
    if (heap[i]!.cancelled) continue;
    heap[n] = heap[i]!;
    times[n] = times[i]!;
    n++;
  }
  heap.length = n;
  q.cancelled = 0;
  for (let i = (n - 2) >> 2; i >= 0; i--) siftDown(q, i, heap[i]!, times[i]!);
}

export function pushEvent<A, B>(
  q: EventQueue,
  time: number,
  run: (a: A, b: B) => void,
  a: A,
  b: B,
): SimEvent {
  const ev: SimEvent = { seq: q.nextSeq++, run, a, b, cancelled: false };
  const heap = q.heap;
  let i = heap.length;
  if (i === q.times.length) grow(q);
  const times = q.times;
  heap.push(ev);
  // New events are almost always later than their parents: the loop usually stops at once.
  while (i > 0) {
    const parent = (i - 1) >> 2;
    const pt = times[parent]!;
    if (pt < time || (pt === time && heap[parent]!.seq < ev.seq)) break;
    heap[i] = heap[parent]!;
    times[i] = pt;
    i = parent;
  }
  heap[i] = ev;
  times[i] = time;
  return ev;
}

function grow(q: EventQueue): void {
  const times = new Float64Array(q.times.length * 2);
  times.set(q.times);
  q.times = times;
}

/** The earliest live event, without removing it; cancelled events on top are discarded. */
export function peekEvent(q: EventQueue): SimEvent | undefined {
  const heap = q.heap;
  while (heap.length > 0 && heap[0]!.cancelled) {
    popTop(q);
    q.cancelled--;
  }
  return heap[0];
}

/** The time of the event peekEvent returned. */
export function topTime(q: EventQueue): number {
  return q.times[0]!;
}

/** Removes the earliest event (call after peekEvent returned it). */
export function dropTop(q: EventQueue): void {
  popTop(q);
}

function popTop(q: EventQueue): void {
  const heap = q.heap;
  const last = heap.pop()!;
  const n = heap.length;
  if (n > 0) siftDown(q, 0, last, q.times[n]!);
}

/** Places `ev` (due at `time`) at position `start` or below, moving earlier children up. */
function siftDown(q: EventQueue, start: number, ev: SimEvent, time: number): void {
  const heap = q.heap;
  const times = q.times;
  const n = heap.length;
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
    heap[i] = heap[child]!;
    times[i] = ct;
    i = child;
  }
  heap[i] = ev;
  times[i] = time;
}
