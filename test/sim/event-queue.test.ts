/** The agenda: events come out in (time, creation) order, cancelled ones never do. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cancelEvent, createEventQueue, dropTop, peekEvent, pushEvent } from "../../src/sim/event-queue.js";

describe("the event queue", () => {
  it("pops live events by time, ties by creation order, across compactions", () => {
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
          const out: number[] = [];
          for (let ev = peekEvent(q); ev !== undefined; ev = peekEvent(q)) {
            out.push(ev.a as number);
            dropTop(q);
          }
          live.sort((x, y) => x.time - y.time || x.id - y.id);
          expect(out).toEqual(live.map((e) => e.id));
          expect(q.cancelled).toBe(0);
        },
      ),
      { numRuns: 200, seed: 3 },
    );
  });
});
