/** A small schedule arbitrary for the simulator's own property tests: every fault kind, any node. */
import fc from "fast-check";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";

const HORIZON = 4000;

function nodeRef(clients: number, servers: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: 0, max: clients - 1 }).map((i) => `client:${i}`),
    fc.integer({ min: 0, max: servers - 1 }).map((i) => `server:${i}`),
    fc.constantFrom("server:leader", "resource"),
  );
}

function faultArb(clients: number, servers: number): fc.Arbitrary<Fault> {
  const node = nodeRef(clients, servers);
  const at = fc.integer({ min: 0, max: HORIZON });
  const duration = fc.integer({ min: 1, max: 2000 });
  return fc.oneof(
    fc.record({ kind: fc.constant("pause" as const), node, at, durationMs: duration }),
    fc.record({
      kind: fc.constant("pause-at" as const),
      client: fc.integer({ min: 0, max: clients - 1 }),
      checkpoint: fc.constantFrom("acquire-sent", "acquired", "before-write", "before-release"),
      occurrence: fc.integer({ min: 0, max: 3 }),
      durationMs: duration,
    }),
    fc.record({
      kind: fc.constant("crash" as const),
      node,
      at,
      restartAfterMs: fc.option(duration, { nil: null }),
    }),
    fc.record({
      kind: fc.constant("partition" as const),
      at,
      durationMs: duration,
      a: fc.array(node, { minLength: 1, maxLength: 3 }),
      b: fc.array(node, { minLength: 1, maxLength: 3 }),
      oneWay: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant("clock-jump" as const),
      node,
      at,
      deltaMs: fc.integer({ min: -3000, max: 3000 }),
    }),
    fc.record({
      kind: fc.constant("clock-drift" as const),
      node,
      at,
      rate: fc.double({ min: -0.5, max: 2, noNaN: true }),
    }),
    fc.record({
      kind: fc.constant("delay" as const),
      from: node,
      to: node,
      at,
      durationMs: duration,
      extraMs: duration,
    }),
  );
}

export function scheduleArb(servers: number, resource: Schedule["resource"]): fc.Arbitrary<Schedule> {
  return fc.integer({ min: 1, max: 4 }).chain((clients) =>
    fc.record({
      version: fc.constant(1 as const),
      target: fc.constant("sim:test"),
      resource: fc.constant(resource),
      seed: fc.nat({ max: 0xffffffff }),
      options: fc.record({
        lockName: fc.constant("L"),
        ttlMs: fc.integer({ min: 200, max: 2000 }),
        callTimeoutMs: fc.integer({ min: 20, max: 500 }),
        horizonMs: fc.constant(HORIZON),
        latencyMs: fc.record({ min: fc.integer({ min: 0, max: 3 }), max: fc.integer({ min: 3, max: 20 }) }),
        lossRate: fc.constantFrom(0, 0.01, 0.1),
        servers: fc.constant(servers),
      }),
      clients: fc.constant(null).chain(() =>
        fc.tuple(
          ...Array.from({ length: clients }, (_, id) =>
            fc.record({
              id: fc.constant(id),
              cycles: fc.array(
                fc.record({
                  thinkMs: fc.integer({ min: 0, max: 500 }),
                  holdMs: fc.integer({ min: 0, max: 800 }),
                  writes: fc.integer({ min: 0, max: 3 }),
                }),
                { maxLength: 5 },
              ),
            }),
          ),
        ),
      ),
      faults: fc.array(faultArb(clients, servers), { maxLength: 8 }),
    }),
  );
}
