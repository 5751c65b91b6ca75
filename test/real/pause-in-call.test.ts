/**
 * Pauses inside calls and reply delays on real servers (issue 11, item 2): a client SIGSTOPped
 * a few ms into its acquire (while the call is in flight) reaches Redlock's "pause during
 * acquisition" double grant when the lock skips the validity check; a delay from a server to
 * a client holds that server's replies in the link's proxy. Nothing is left behind.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModule } from "../../src/custom/module-target.js";
import type { AcquireOp, ClientOp, NemesisOp, Op } from "../../src/history/op.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import { missingBinaries, schedule } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";

const missing = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();
const MS = 1e6;

const clientOp = (ops: readonly Op[], process: number, f: string, type: string): ClientOp | undefined =>
  ops.find((o): o is ClientOp => o.process === process && o.f === f && o.type === type);
const nemesis = (ops: readonly Op[], f: string): NemesisOp[] =>
  ops.filter((o): o is NemesisOp => o.process === "nemesis" && o.f === f);

/** Client 0 acquires once and holds; client 1 keeps trying meanwhile (`ttlMs` 1 s unless given). */
function contended(target: string, faults: Fault[], ttlMs = 1000): Schedule {
  return schedule(
    target,
    "unfenced",
    { servers: 5, ttlMs, callTimeoutMs: 300, horizonMs: Math.max(5000, 2 * ttlMs) },
    [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 800, writes: 4 }] },
      { id: 1, cycles: [{ thinkMs: 200, holdMs: 200, writes: 1 }], repeat: true },
    ],
    faults,
  );
}

const pauseInAcquire = (afterMs: number, durationMs: number): Fault => ({
  kind: "pause-in-call",
  client: 0,
  call: "acquire",
  occurrence: 0,
  afterMs,
  durationMs,
});

describe.skipIf(missing.length > 0)("pause-in-call and reply delays on real servers", () => {
  it("redis:redlock-nocheck: a pause in acquire longer than the TTL, landing in flight, grants twice", async () => {
    const r = await runChecked(contended("redis:redlock-nocheck", [pauseInAcquire(0, 3000)]));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toContain("mutual-exclusion");
    const invoked = clientOp(r.run.ops, 0, "acquire", "invoke")!;
    const done = clientOp(r.run.ops, 0, "acquire", "ok")!;
    const [pause] = nemesis(r.run.ops, "pause");
    expect(pause?.value, r.timeline).toEqual({
      call: "acquire",
      occurrence: 0,
      afterMs: 0,
      durationMs: 3000,
      inCall: true,
    });
    // Recorded at the real moment it fired: inside the call, which ended after the pause.
    expect(pause!.time).toBeGreaterThanOrEqual(invoked.time);
    expect(pause!.time).toBeLessThan(done.time);
    expect(done.time - pause!.time, r.timeline).toBeGreaterThanOrEqual(3000 * MS);
  });

  it("redis:redlock-nocheck: a delay server→client stretches the acquire; a pause 10 ms in lands inside it", async () => {
    // Replies held 60 ms (with a 4 s TTL, Redlock's per-node timeout is TTL/20 = 200 ms, a
    // margin for a loaded machine): the pause at 10 ms catches them on the way; they wait in
    // the socket until the resume, 6 s later, past the TTL.
    const delays: Fault[] = Array.from({ length: 5 }, (_, i) => ({
      kind: "delay",
      from: `server:${i}`,
      to: "client:0",
      at: 0,
      durationMs: 1000,
      extraMs: 60,
    }));
    const r = await runChecked(
      contended("redis:redlock-nocheck", [...delays, pauseInAcquire(10, 6000)], 4000),
    );
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const [pause] = nemesis(r.run.ops, "pause");
    expect(pause?.value, r.timeline).toMatchObject({ call: "acquire", afterMs: 10, inCall: true });
    const invoked = clientOp(r.run.ops, 0, "acquire", "invoke")!;
    expect((pause!.time - invoked.time) / MS, r.timeline).toBeGreaterThanOrEqual(10);
    expect(r.violations, r.timeline).toContain("mutual-exclusion");
  });

  it("redis:lease: a delay from the server to a client holds its replies (server→client direction)", async () => {
    const s = schedule(
      "redis:lease",
      "unfenced",
      { servers: 1, ttlMs: 500, callTimeoutMs: 2000, horizonMs: 3000 },
      [
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 0, writes: 0 }] },
        // After client 0 released (its release's reply is held too), still inside the delay.
        { id: 1, cycles: [{ thinkMs: 1200, holdMs: 0, writes: 0 }] },
      ],
      [{ kind: "delay", from: "server:0", to: "client:0", at: 0, durationMs: 2000, extraMs: 400 }],
    );
    const r = await runChecked(s);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const took = (p: number): number =>
      (r.run.ops.find((o) => o.process === p && o.f === "acquire" && o.type !== "invoke")!.time -
        clientOp(r.run.ops, p, "acquire", "invoke")!.time) /
      MS;
    expect(took(0), r.timeline).toBeGreaterThanOrEqual(400);
    // Only that one direction of that one link: client 1 is not slowed.
    expect(took(1), r.timeline).toBeLessThan(400);
    expect(nemesis(r.run.ops, "delay")[0]?.value).toMatchObject({
      from: "server:0",
      to: "client:0",
      extraMs: 400,
    });
  });
});

const FIXTURES = fileURLToPath(new URL("../fixtures/libraries/", import.meta.url));

/** Loads a library adapter from test/fixtures/libraries/ and returns its target name. */
async function fixtureTarget(file: string): Promise<string> {
  const loaded = await loadModule(`module:./${file}`, FIXTURES);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value.target.name;
}

describe.skipIf(missing.length > 0)("a pause 0 ms into a library's call", () => {
  it("lands before the reply is read, though the reply is back before the event loop turns", async () => {
    // busy-after-send.mjs sends SET NX PX, then keeps the process busy for 200 ms: the reply is
    // in the socket by then. Client 0 acquires from a timer (after 100 ms of thinking), so a
    // stop from setImmediate alone would come after the poll phase had read it (inCall false).
    const s = schedule(
      await fixtureTarget("busy-after-send.mjs"),
      "unfenced",
      { servers: 1, ttlMs: 1000, callTimeoutMs: 500, horizonMs: 5000 },
      [
        { id: 0, cycles: [{ thinkMs: 100, holdMs: 900, writes: 4 }] },
        { id: 1, cycles: [{ thinkMs: 300, holdMs: 600, writes: 3 }], repeat: true },
      ],
      [pauseInAcquire(0, 2500)],
    );
    const r = await runChecked(s);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const [pause] = nemesis(r.run.ops, "pause");
    expect(pause?.value, r.timeline).toMatchObject({ call: "acquire", afterMs: 0, inCall: true });
    const done = clientOp(r.run.ops, 0, "acquire", "ok")!;
    expect(done.time - pause!.time, r.timeline).toBeGreaterThanOrEqual(2500 * MS);
    // Granted before the stop, read after it, past the TTL: client 1 holds the lock too, and
    // their writes interleave.
    expect(r.violations, r.timeline).toContain("mutual-exclusion");
  });
});

describe.skipIf(missing.length > 0)(
  "a pause 0 ms into a call whose library writes from a setImmediate",
  () => {
    it("lands after the SET is written: the holder wakes past its lease and takes a token above the next holder's", async () => {
      // deferred-write-token.mjs writes each command from an immediate the call queues (as
      // node-redis does) and takes its token with an INCR after the SET. Client 0's second
      // acquire is stopped once its SET is out, for 1.5 s (past the 1-s lease); client 1 takes
      // the lock meanwhile and still holds it when client 0 wakes and INCRs.
      const s = schedule(
        await fixtureTarget("deferred-write-token.mjs"),
        "fenced",
        { servers: 1, ttlMs: 1000, callTimeoutMs: 500, horizonMs: 4000 },
        [
          {
            id: 0,
            cycles: [
              { thinkMs: 0, holdMs: 100, writes: 1 },
              { thinkMs: 0, holdMs: 500, writes: 2 },
            ],
          },
          { id: 1, cycles: [{ thinkMs: 1200, holdMs: 950, writes: 4 }] },
        ],
        [{ kind: "pause-in-call", client: 0, call: "acquire", occurrence: 1, afterMs: 0, durationMs: 1500 }],
      );
      const r = await runChecked(s);
      track(r.runId);
      const [pause] = nemesis(r.run.ops, "pause");
      expect(pause?.value, r.timeline).toMatchObject({
        call: "acquire",
        occurrence: 1,
        afterMs: 0,
        inCall: true,
      });
      // The SET was in before the stop: client 0's acquire ends ok, with the higher token.
      const acquires = r.run.ops.filter((o): o is AcquireOp => o.f === "acquire" && o.type === "ok");
      expect(
        acquires.map((o) => [o.process, o.token]),
        r.timeline,
      ).toEqual([
        [0, 1n],
        [1, 2n],
        [0, 3n],
      ]);
      expect(r.violations, r.timeline).toContain("token-order");
    });
  },
);
