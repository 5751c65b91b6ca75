/**
 * The lock algorithms in the simulator, on hand-written schedules: what keep-alives and
 * sessions buy (a hold longer than the TTL is safe for consensus and zk, not for a bare
 * lease), and that fencing tokens increase across grants.
 */
import { describe, expect, it } from "vitest";
import type { AcquireOp } from "../../src/history/op.js";
import { runAndCheck } from "../../src/runner/execute.js";
import { scheduleFor, target } from "../fuzz/schedules.js";

/** Two clients; client 0 holds for 1.8 TTLs and writes throughout; client 1 comes in the middle. */
const longHold = (name: string) =>
  scheduleFor(name, {
    resource: "unfenced",
    clients: [[{ thinkMs: 0, holdMs: 1800, writes: 6 }], [{ thinkMs: 300, holdMs: 200, writes: 2 }]],
  });

describe("lock algorithms in the simulator", () => {
  it("a bare lease expires under a holder that holds longer than its TTL", async () => {
    const r = await runAndCheck(target("sim:lease"), longHold("sim:lease"));
    expect(r.violation).toBe(true);
  });

  for (const name of ["sim:consensus", "sim:zk"]) {
    it(`${name}: the keep-alive / heartbeat loop keeps a long hold exclusive`, async () => {
      const r = await runAndCheck(target(name), longHold(name));
      expect(r.violation).toBe(false);
      const grants = r.ops.filter((o): o is AcquireOp => o.f === "acquire" && o.type === "ok");
      expect(grants.map((g) => g.process)).toEqual([0, 1]);
      // Client 1 got the lock only after client 0 released it.
      const release = r.ops.find((o) => o.f === "release" && o.type === "invoke" && o.process === 0);
      expect(grants[1]!.time).toBeGreaterThan(release!.time);
    });
  }

  for (const name of ["sim:lease-token", "sim:consensus", "sim:zk"]) {
    it(`${name}: tokens strictly increase across grants`, async () => {
      const cycles = [
        { thinkMs: 0, holdMs: 50, writes: 1 },
        { thinkMs: 30, holdMs: 50, writes: 1 },
      ];
      const s = scheduleFor(name, { resource: "fenced", clients: [cycles, cycles, cycles] });
      const r = await runAndCheck(target(name), s);
      const tokens = r.ops
        .filter((o): o is AcquireOp => o.f === "acquire" && o.type === "ok")
        .map((o) => o.token);
      expect(tokens.length).toBeGreaterThanOrEqual(4);
      for (let i = 1; i < tokens.length; i++) expect(tokens[i]! > tokens[i - 1]!).toBe(true);
      expect(r.violation).toBe(false);
    });
  }
});
