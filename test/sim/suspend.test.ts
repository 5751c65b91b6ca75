/**
 * A client pause whose clocks stop (`clocks: "stopped"`, a suspended VM): on resume the
 * client's clocks read what they read when it stopped, its timers wait again for deadlines
 * the pause passed, and a lock that measures how long acquiring took by the client's own
 * clock (Redlock's validity check) takes the lost time for none.
 */
import { describe, expect, it } from "vitest";
import { checkOps, SAFETY_CHECKERS } from "../../src/checkers/index.js";
import type { Fault } from "../../src/schedule/schedule.js";
import { monoAt, wallAt } from "../../src/sim/clock.js";
import { createNode, pauseNode, resumeNode, rewindClock, setTimer } from "../../src/sim/node.js";
import { at, createCore, runLoop } from "../../src/sim/scheduler.js";
import { simulate } from "../../src/sim/simulate.js";
import { findTarget } from "../../src/targets/index.js";
import { completion, MS, nemesisOps, probe, scheduleOf } from "./helpers.js";

describe("a pause whose clocks stop", () => {
  it("sets the node's clocks back to their reading at the pause, and its due timers wait again", async () => {
    const core = createCore();
    const node = createNode(core, "client:0");
    const fired: number[] = [];
    setTimer(node, 100, () => fired.push(core.now));
    at(core, 0, () => pauseNode(node));
    at(core, 500, () => {
      // The timer came due at 100, during the pause; the clocks lose the 500 ms.
      rewindClock(node, 0);
      resumeNode(node);
    });
    await runLoop(core, { done: () => false, failure: () => undefined, endTime: 10_000, maxEvents: 1000 });
    expect(fired).toEqual([600]);
    expect(monoAt(node.clock, 600)).toBe(100);
    expect(wallAt(node.clock, 600)).toBe(100);
  });

  it("a client reads, on resume, the time it read when it stopped", async () => {
    const seen: number[] = [];
    const lock = probe("redis", async (env) => {
      seen.push(env.now());
      await env.checkpoint("acquire-sent");
      seen.push(env.now());
    });
    const pauseAt = (clocks?: "stopped"): Fault => ({
      kind: "pause-at",
      client: 0,
      checkpoint: "acquire-sent",
      occurrence: 0,
      durationMs: 700,
      ...(clocks === undefined ? {} : { clocks }),
    });
    const running = scheduleOf({ faults: [pauseAt()] });
    const stopped = scheduleOf({ faults: [pauseAt("stopped")] });
    await simulate(running, lock);
    const [before, after] = seen.splice(0);
    expect(after! - before!).toBe(700);
    const { ops } = await simulate(stopped, lock);
    const [before2, after2] = seen.splice(0);
    expect(after2).toBe(before2);
    expect(nemesisOps(ops).map((op) => [op.f, (op.value as { clocks?: string }).clocks])).toEqual([
      ["pause", "stopped"],
      ["resume", "stopped"],
    ]);
  });

  it("defeats Redlock's validity check: a suspend during an acquire grants a lock already taken", async () => {
    const redlock = findTarget("sim:redlock");
    if (!redlock.ok) throw new Error(redlock.error.message);
    // Client 0 sends its SETs at 0 and is suspended for 1.5 s before reading the replies;
    // its keys expire at 1 s and client 1 takes the lock at 1.1 s, writing at 1.4, 1.7 and 2 s.
    const suspend = (clocks?: "stopped"): Fault => ({
      kind: "pause-in-call",
      client: 0,
      call: "acquire",
      occurrence: 0,
      afterMs: 0,
      durationMs: 1500,
      ...(clocks === undefined ? {} : { clocks }),
    });
    const base = {
      options: { ttlMs: 1000, callTimeoutMs: 100, servers: 5 },
      clients: [
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 100, writes: 1 }] },
        { id: 1, cycles: [{ thinkMs: 1100, holdMs: 900, writes: 3 }] },
      ],
    };
    const run = async (clocks?: "stopped") => {
      const { ops } = await simulate(
        scheduleOf({ ...base, faults: [suspend(clocks)] }),
        redlock.value.algorithm!,
      );
      return { ops, verdicts: checkOps(ops, SAFETY_CHECKERS) };
    };
    // Clocks running: client 0 sees that acquiring took 1.5 s, more than the TTL, and lets go.
    const paused = await run();
    expect(paused.verdicts.every((v) => v.valid === true)).toBe(true);
    const suspended = await run("stopped");
    const granted = completion(suspended.ops, 0, "acquire");
    expect(granted.type).toBe("ok");
    expect(granted.time).toBe(1500 * MS);
    expect(completion(suspended.ops, 1, "acquire").type).toBe("ok");
    expect(suspended.verdicts.map((v) => [v.checker, v.valid])).toEqual([
      ["stale-write", false],
      ["mutual-exclusion", false],
      ["token-order", true],
    ]);
  });
});
