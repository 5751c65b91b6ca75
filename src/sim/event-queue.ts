/**
 * The simulator's agenda: a binary min-heap of events keyed by (time, seq). `seq` is the
 * order in which events were scheduled, so two events at the same virtual time run in the
 * order they were created — the tie-break that makes a run deterministic.
 *
 * An event is a function and up to two arguments rather than a closure, so the hot paths
 * (message arrivals, timers) allocate one object per event. Cancelling an event only marks
 * it; the heap drops it when it reaches the top.
 */

export interface SimEvent {
  readonly time: number;
  readonly seq: number;
  readonly run: (a: never, b: never) => void;
  readonly a: unknown;
  readonly b: unknown;
  cancelled: boolean;
}

export interface EventQueue {
  readonly heap: SimEvent[];
  nextSeq: number;
}

export function createEventQueue(): EventQueue {
  return { heap: [], nextSeq: 0 };
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}

export function pushEvent<A, B>(
  q: EventQueue,
  time: number,
  run: (a: A, b: B) => void,
  a: A,
  b: B,
): SimEvent {
  const ev: SimEvent = { time, seq: q.nextSeq++, run, a, b, cancelled: false };
  const heap = q.heap;
  let i = heap.length;
  heap.push(ev);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent]!;
    if (!before(ev, p)) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = ev;
  return ev;
}

/** The earliest live event, without removing it; cancelled events on top are discarded. */
export function peekEvent(q: EventQueue): SimEvent | undefined {
  const heap = q.heap;
  while (heap.length > 0 && heap[0]!.cancelled) popTop(heap);
  return heap[0];
}

/** Removes the earliest event (call after peekEvent returned it). */
export function dropTop(q: EventQueue): void {
  popTop(q.heap);
}

function popTop(heap: SimEvent[]): void {
  const last = heap.pop()!;
  const n = heap.length;
  if (n === 0) return;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const child = r < n && before(heap[r]!, heap[l]!) ? r : l;
    if (!before(heap[child]!, last)) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
}
