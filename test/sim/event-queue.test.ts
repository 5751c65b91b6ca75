/** The agenda: events come out in (time, creation) order, cancelled ones never do. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cancelEvent,
  createEventQueue,
  dropTop,
  type EventQueue,
  notRun,
  type OwnEvent,
  peekEvent,
  pushEvent,
  pushOwnEvent,
  queueSize,
} from "../../src/sim/event-queue.js";

/** Every event is due no earlier than its parent (ties: created later), and knows its place. */
function expectHeapOrder(q: EventQueue): void {
  for (let i = 0; i < queueSize(q); i++) {
    expect(q.heap[i]).not.toBeNull();
    expect(q.heap[i]!.index).toBe(i);
    if (i === 0) continue;
    const p = (i - 1) >> 2;
    const [pt, t] = [q.times[p]!, q.times[i]!];
    expect(pt < t || (pt === t && q.heap[p]!.seq < q.heap[i]!.seq)).toBe(true);
  }
}

describe("the event queue", () => {
  it("pops live events by time, ties by creation order, cancelled ones taken out", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ time: fc.integer({ min: 0, max: 50 }), cancel: fc.boolean() }), {
          maxLength: 2000,
        }),
        (specs) => {
          const q = createEventQueue();
          const live: { time: number; id: number }[] = [];
          const events = specs.map((spec, id) => pushEvent(q, spec.time, () => {}, id, undefined));
          specs.forEach((spec, id) => {
            if (spec.cancel) cancelEvent(q, events[id]!);
            else live.push({ time: spec.time, id });
          });
          // Cancelled events left the heap at once.
          expect(queueSize(q)).toBe(live.length);
          expect(q.heap.slice(queueSize(q)).every((e) => e === null)).toBe(true);
          const out: number[] = [];
          for (let ev = peekEvent(q); ev !== undefined; ev = peekEvent(q)) {
            out.push(ev.a as number);
            dropTop(q);
          }
          live.sort((x, y) => x.time - y.time || x.id - y.id);
          expect(out).toEqual(live.map((e) => e.id));
        },
      ),
      { numRuns: 200, seed: 3 },
    );
  });

  it("grows past its first capacity and keeps every event", () => {
    const q = createEventQueue();
    const n = 3 * q.times.length + 5;
    // Latest first, so that every push moves up the whole heap.
    for (let i = 0; i < n; i++) pushEvent(q, n - i, () => {}, n - i, undefined);
    expect(queueSize(q)).toBe(n);
    expectHeapOrder(q);
    const out: number[] = [];
    for (let ev = peekEvent(q); ev !== undefined; ev = peekEvent(q)) {
      out.push(ev.a as number);
      dropTop(q);
    }
    expect(out).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(q.heap.every((e) => e === null)).toBe(true);
  });

  it("keeps (time, creation) order when events are cancelled between pops, also ones that already ran", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { arbitrary: fc.record({ push: fc.integer({ min: 0, max: 100 }) }), weight: 4 },
            { arbitrary: fc.record({ cancel: fc.nat() }), weight: 2 },
            { arbitrary: fc.constant({ pop: true }), weight: 1 },
          ),
          { maxLength: 500 },
        ),
        (steps) => {
          const q = createEventQueue();
          const made: { ev: ReturnType<typeof pushEvent>; time: number; id: number }[] = [];
          let live: { time: number; id: number }[] = [];
          for (const step of steps) {
            if ("push" in step) {
              const time = step.push;
              const id = made.length;
              made.push({ ev: pushEvent(q, time, () => {}, id, undefined), time, id });
              live.push({ time, id });
            } else if ("cancel" in step) {
              if (made.length === 0) continue;
              const m = made[step.cancel % made.length]!;
              cancelEvent(q, m.ev);
              live = live.filter((e) => e.id !== m.id);
              expectHeapOrder(q);
            } else {
              live.sort((x, y) => x.time - y.time || x.id - y.id);
              const expected = live.shift();
              const ev = peekEvent(q);
              expect(ev?.a).toBe(expected?.id);
              if (ev === undefined) continue;
              dropTop(q);
            }
          }
          expect(queueSize(q)).toBe(live.length);
          expect(q.heap.slice(queueSize(q)).every((e) => e === null)).toBe(true);
        },
      ),
      { numRuns: 300, seed: 9 },
    );
  });

  it("moves the event that fills a cancelled one's place up when it is earlier than its new parent", () => {
    // Heap (4-ary): 0 | 50 1 1 1 | 60 60 60 60 (under 50) | 2 (under the first 1).
    const q = createEventQueue();
    const times = [0, 50, 1, 1, 1, 60, 60, 60, 60, 2];
    const events = times.map((t, id) => pushEvent(q, t, () => {}, id, undefined));
    expect(q.heap.slice(0, queueSize(q)).map((e) => e!.a)).toEqual(times.map((_, id) => id));
    cancelEvent(q, events[5]!); // the last event (time 2) takes its place, under 50
    expectHeapOrder(q);
    const out: unknown[] = [];
    for (let ev = peekEvent(q); ev !== undefined; ev = peekEvent(q)) {
      out.push(ev.a);
      dropTop(q);
    }
    expect(out).toEqual([0, 2, 3, 4, 9, 1, 6, 7, 8]);
  });

  it("takes an object as its own event, in creation order, and refuses it twice while it is in the heap", () => {
    const q = createEventQueue();
    const own: OwnEvent = { seq: 0, run: notRun, a: null, b: null, index: -1 };
    pushEvent(q, 5, () => {}, "plain", undefined);
    pushOwnEvent(q, 5, own, () => {}, "own", undefined);
    expect(() => pushOwnEvent(q, 7, own, () => {}, "again", undefined)).toThrow(/sent again while in flight/);
    const out: unknown[] = [];
    for (let ev = peekEvent(q); ev !== undefined; ev = peekEvent(q)) {
      out.push(ev.a);
      dropTop(q);
    }
    expect(out).toEqual(["plain", "own"]);
    // Once it left the heap it may be pushed again (a call's reply after its request).
    pushOwnEvent(q, 9, own, () => {}, "reply", undefined);
    expect(peekEvent(q)?.a).toBe("reply");
  });
});
