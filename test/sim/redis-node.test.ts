/**
 * The Redis-like node's commands against a model: a key is there from a SET until a matching
 * delete, its expiry on the node's wall clock, or a crash; INCR counts from what is there.
 * (Deleted keys keep a slot that a later SET reuses: it must never show through.)
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jumpClock } from "../../src/sim/clock.js";
import { crashNode, createNode, restartNode } from "../../src/sim/node.js";
import { createCore } from "../../src/sim/scheduler.js";
import { createRedisNode, delIfEquals, incr, setNxPx } from "../../src/sim/servers/redis.js";

type Step =
  | { op: "set"; key: string; value: string; ttlMs: number }
  | { op: "del"; key: string; value: string }
  | { op: "incr"; key: string }
  | { op: "advance"; ms: number }
  | { op: "jump"; ms: number }
  | { op: "crash" };

const key = fc.constantFrom("a", "b");
const value = fc.constantFrom("x", "y", "7");
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key, value, ttlMs: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ op: fc.constant("del" as const), key, value }),
  fc.record({ op: fc.constant("incr" as const), key }),
  fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ op: fc.constant("jump" as const), ms: fc.integer({ min: -20, max: 40 }) }),
  fc.constant({ op: "crash" as const }),
);

describe("the Redis-like node", () => {
  it("agrees with a plain model of keys, values and wall-clock expiry", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const core = createCore();
        const node = createNode(core, "server:0");
        const r = createRedisNode(node);
        const model = new Map<string, { value: string | bigint; expireAt: number | null }>();
        let wall = 0;
        const liveInModel = (k: string) => {
          const e = model.get(k);
          if (e !== undefined && e.expireAt !== null && wall > e.expireAt) model.delete(k);
          return model.get(k);
        };
        for (const s of steps) {
          switch (s.op) {
            case "set": {
              const expected = liveInModel(s.key) === undefined;
              if (expected) model.set(s.key, { value: s.value, expireAt: wall + s.ttlMs });
              expect(setNxPx(r, s.key, s.value, s.ttlMs)).toBe(expected);
              break;
            }
            case "del": {
              const e = liveInModel(s.key);
              const expected = e !== undefined && e.value === s.value;
              if (expected) model.delete(s.key);
              expect(delIfEquals(r, s.key, s.value)).toBe(expected);
              break;
            }
            case "incr": {
              const e = liveInModel(s.key);
              let expected: bigint | null;
              if (e === undefined) expected = 1n;
              else if (typeof e.value === "bigint") expected = e.value + 1n;
              else expected = /^-?\d+$/.test(e.value) ? BigInt(e.value) + 1n : null;
              if (expected !== null) model.set(s.key, { value: expected, expireAt: e?.expireAt ?? null });
              expect(incr(r, s.key)).toBe(expected);
              break;
            }
            case "advance":
              core.now += s.ms;
              wall += s.ms;
              break;
            case "jump":
              jumpClock(node.clock, s.ms);
              wall += s.ms;
              break;
            case "crash":
              crashNode(node);
              restartNode(node);
              model.clear();
              break;
          }
        }
      }),
      { numRuns: 500, seed: 14 },
    );
  });
});
