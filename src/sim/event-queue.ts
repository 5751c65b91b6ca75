/**
 * The simulator's agenda: a binary min-heap of events keyed by (time, seq). `seq` is the
 * order in which events were scheduled, so two events at the same virtual time run in the
 * order they were created — the tie-break that makes a run deterministic.
 *
 * Cancelling an event only marks it; the heap drops it when it reaches the top (cheaper
 * than removing it from the middle, and cancelled events are rare enough).
 */

export interface SimEvent {
  readonly time: number;
  readonly seq: number;
  readonly run: () => void;
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

export function pushEvent(q: EventQueue, time: number, run: () => void): SimEvent {
  const ev: SimEvent = { time, seq: q.nextSeq++, run, cancelled: false };
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
  while (q.heap.length > 0 && q.heap[0]!.cancelled) popTop(q);
  return q.heap[0];
}

/** Removes and returns the earliest live event. */
export function popEvent(q: EventQueue): SimEvent | undefined {
  const top = peekEvent(q);
  if (top !== undefined) popTop(q);
  return top;
}

function popTop(q: EventQueue): void {
  const heap = q.heap;
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
