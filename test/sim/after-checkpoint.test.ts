/**
 * Checkpoint faults with `afterMs` in the simulator: the client goes on from the checkpoint,
 * and the pause or cut starts `afterMs` later by a timer of the client's own (so a client
 * frozen meanwhile starts it once it runs again), as a real client times it. With one-way
 * latency 10 ms, the grant comes at 120 ms (think 100) and the hold's write 300 ms later.
 */
import { describe, expect, it } from "vitest";
import type { Fault } from "../../src/schedule/schedule.js";
import { simulate } from "../../src/sim/simulate.js";
import { completion, invocation, MS, nemesisOps, scheduleOf, setOnce } from "./helpers.js";

const holder = (faults: Fault[], options?: Parameters<typeof scheduleOf>[0]["options"]) =>
  scheduleOf({ clients: [{ id: 0, cycles: [{ thinkMs: 100, holdMs: 300, writes: 1 }] }], faults, options });

describe("checkpoint faults afterMs after the checkpoint (simulator)", () => {
  it("a pause-at acquired +100 ms lands in the sleep of the hold; the client did not wait for it", async () => {
    const pause: Fault = {
      kind: "pause-at",
      client: 0,
      checkpoint: "acquired",
      occurrence: 0,
      afterMs: 100,
      durationMs: 50,
    };
    const { ops } = await simulate(holder([pause]), setOnce);
    const granted = completion(ops, 0, "acquire").time;
    expect(granted).toBe(120 * MS);
    expect(nemesisOps(ops).map((op) => [op.f, op.time, op.value])).toEqual([
      ["pause", granted + 100 * MS, { checkpoint: "acquired", occurrence: 0, afterMs: 100, durationMs: 50 }],
      ["resume", granted + 150 * MS, { checkpoint: "acquired", occurrence: 0, afterMs: 100, durationMs: 50 }],
    ]);
    // The hold's sleep (due at +300 ms) outlasted the pause: the write is on time.
    expect(invocation(ops, 0, "write").time).toBe(granted + 300 * MS);
    // At the checkpoint itself, the pause delays everything after it.
    const { afterMs: _, ...atCheckpoint } = pause;
    const now = await simulate(holder([atCheckpoint as Fault]), setOnce);
    expect(invocation(now.ops, 0, "write").time).toBe(granted + 350 * MS);
  });

  it("a partition-at before-write +5 ms cuts the write in flight, not before it is sent", async () => {
    const cut: Fault = {
      kind: "partition-at",
      client: 0,
      checkpoint: "before-write",
      occurrence: 0,
      afterMs: 5,
      durationMs: 1000,
      nodes: ["resource"],
    };
    const { ops } = await simulate(holder([cut], { callTimeoutMs: 100 }), setOnce);
    const sent = invocation(ops, 0, "write").time;
    const [partition] = nemesisOps(ops);
    expect([partition?.f, partition?.time]).toEqual(["partition", sent + 5 * MS]);
    expect(partition?.value).toMatchObject({
      a: ["client:0"],
      b: ["resource"],
      checkpoint: "before-write",
      afterMs: 5,
    });
    // The write reached the resource before the cut; its reply did not come back.
    expect(completion(ops, 0, "write").type).toBe("info");
  });

  it("is timed by the client: frozen at the checkpoint, it starts its later fault once it runs again", async () => {
    const frozen: Fault = {
      kind: "pause-at",
      client: 0,
      checkpoint: "acquired",
      occurrence: 0,
      durationMs: 500,
    };
    const cut: Fault = {
      kind: "partition-at",
      client: 0,
      checkpoint: "acquired",
      occurrence: 0,
      afterMs: 100,
      durationMs: 50,
      nodes: ["server:0"],
    };
    const { ops } = await simulate(holder([frozen, cut]), setOnce);
    const granted = completion(ops, 0, "acquire").time;
    const partition = nemesisOps(ops).find((op) => op.f === "partition");
    expect(partition?.time).toBe(granted + 500 * MS);
  });
});
