/**
 * The simulator's agenda: a binary min-heap of events keyed by (time, seq). `seq` is the
 * order in which events were scheduled, so two events at the same virtual time run in the
 * order they were created — the tie-break that makes a run deterministic.
 *
 * An event is a function and up to two arguments rather than a closure, so the hot paths
 * (message arrivals, timers) allocate one object per event. Cancelling an event only marks
 * it; the heap drops it when it reaches the top, or rebuilds itself without the cancelled
 * ones once they are the majority (every call's timeout timer is cancelled when the reply
 * comes, and with long call timeouts they would otherwise pile up).
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
  heap: SimEvent[];
  nextSeq: number;
  /** Cancelled events still in the heap. */
  cancelled: number;
}

export function createEventQueue(): EventQueue {
  return { heap: [], nextSeq: 0, cancelled: 0 };
}

export function cancelEvent(q: EventQueue, ev: SimEvent): void {
  if (ev.cancelled) return;
  ev.cancelled = true;
  q.cancelled++;
  if (q.cancelled > 256 && q.cancelled * 2 > q.heap.length) compact(q);
}

/** Drops every cancelled event and restores the heap order (Floyd's heapify, O(n)). */
function compact(q: EventQueue): void {
  const heap = q.heap.filter((ev) => !ev.cancelled);
  q.heap = heap;
  q.cancelled = 0;
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, heap[i]!);
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
  while (heap.length > 0 && heap[0]!.cancelled) {
    popTop(heap);
    q.cancelled--;
  }
  return heap[0];
}

/** Removes the earliest event (call after peekEvent returned it). */
export function dropTop(q: EventQueue): void {
  popTop(q.heap);
}

function popTop(heap: SimEvent[]): void {
  const last = heap.pop()!;
  if (heap.length > 0) siftDown(heap, 0, last);
}

/** Places `ev` at position `start` or below, moving earlier children up. */
function siftDown(heap: SimEvent[], start: number, ev: SimEvent): void {
  const n = heap.length;
  let i = start;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const child = r < n && before(heap[r]!, heap[l]!) ? r : l;
    if (!before(heap[child]!, ev)) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = ev;
}
