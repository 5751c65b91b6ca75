/**
 * Real lock libraries as they are (docs/examples/libraries/, docs/libraries.md), each client in
 * its own process on servers lockcheck starts, with real faults:
 *
 * - redlock 5.0.0-beta.2 (and @sesamecare-oss/redlock): replies to a client's acquire are held
 *   back (a `delay` of server→client traffic on its links) and the client is SIGSTOPped while
 *   they are in flight, longer than the TTL; the keys expire, another client takes the lock and
 *   writes; the paused one wakes, reads the quorum of old "yes" replies and, without a validity
 *   check, believes it holds the lock: a double grant, and its write interleaves the other's.
 *   The same schedule with the validity check added in the adapter is safe — unless the
 *   client's wall clock steps back during the acquire: the check reads Date.now(), which the
 *   client's clock faults reach (src/real/client/process-clock.ts). Measured on the monotonic
 *   clock (performance.now()), the check holds.
 * - redis-semaphore's Mutex and etcd3's lock: a holder SIGSTOPped for longer than the TTL (its
 *   refresh / keep-alive timers frozen too) writes after the next holder: a stale write. Fenced
 *   variants (token checked by lockcheck's fenced resource) are safe on the same schedule.
 *
 * Margins are wide (TTL 1 s, pauses of 3 s, writes spread over the other holder's whole hold)
 * so that a loaded machine shifts nothing that matters.
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModule } from "../../src/custom/module-target.js";
import type { Op } from "../../src/history/op.js";
import { loadSchedule } from "../../src/schedule/load.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { missingBinaries } from "./helpers.js";
import { type CheckedRealRun, expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";

const LIBRARIES = fileURLToPath(new URL("../../docs/examples/libraries/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../fixtures/libraries/", import.meta.url));

const missingRedis = missingBinaries(["redis-server"]);
const missingEtcd = missingBinaries(["redis-server", "etcd"]);

const track = expectNothingLeftAfterEach();

/** Loads an adapter from docs/examples/libraries/ and returns its target name. */
async function adapter(file: string): Promise<string> {
  const loaded = await loadModule(`module:./${file}`, LIBRARIES);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value.target.name;
}

async function run(s: Schedule): Promise<CheckedRealRun> {
  const r = await runChecked(s);
  track(r.runId);
  expect(r.run.warnings, r.timeline).toEqual([]);
  return r;
}

/** The run's pauses: whether their clocks stopped, and whether each landed inside its call. */
const pausesOf = (r: CheckedRealRun) =>
  r.run.ops
    .filter((o) => o.process === "nemesis" && o.f === "pause")
    .map((o) => {
      const { clocks, inCall } = o.value as { clocks?: string; inCall?: boolean };
      return { clocks, inCall };
    });

const acquiresOk = (ops: readonly Op[], process: number) =>
  ops.filter((o) => o.process === process && o.f === "acquire" && o.type === "ok");

/** Safe: client 0's stalled acquire was refused, so each client held the lock once, and nothing was violated. */
function expectOneGrantEach(r: CheckedRealRun): void {
  expect(acquiresOk(r.run.ops, 0), r.timeline).toHaveLength(1);
  expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
  expect(r.violations, r.timeline).toEqual([]);
}

/** The double grant: client 0 was granted its second acquire only after client 1 had been granted the lock. */
function expectLateSecondGrant(r: CheckedRealRun): void {
  const [late] = acquiresOk(r.run.ops, 0).slice(1);
  const [other] = acquiresOk(r.run.ops, 1);
  expect(late, r.timeline).toBeDefined();
  expect(other, r.timeline).toBeDefined();
  expect(late!.index, r.timeline).toBeGreaterThan(other!.index);
  expect(r.violations, r.timeline).toContain("mutual-exclusion");
}

/**
 * The schedules docs/libraries.md runs, from docs/examples/libraries/, on `target`.
 *
 * acquisition-pause.json: client 0 takes and gives back the lock once (which loads Redlock's
 * script into every node's cache, so the next acquire is one EVALSHA round trip), then acquires
 * again at ~600 ms while every node's replies to it are held 1.5 s, and is SIGSTOPped at 1.2 s
 * for 3 s: its keys expire at ~1.6 s, client 1 takes the lock at ~3.5 s and writes every
 * 150 ms; client 0 wakes at ~4.2 s with a quorum of "yes" replies and writes at once.
 *
 * acquisition-clock-step.json: the same, and client 0's wall clock steps back 4 s at 1 s,
 * while its acquire waits for the held replies.
 *
 * acquisition-suspend.json: the same clients and reply delays; instead of the timed pause,
 * client 0 is suspended (stopped, its clocks with it) as soon as its second acquire's requests
 * are out, for 3.6 s (the delays keep the replies away until then: without them a loopback
 * reply can beat the stop). Without `clocks` it is a plain pause at the same point.
 *
 * late-grant.json: client 0 acquires at 100 ms while the server's replies to it are held 900 ms:
 * the key is set at ~100 ms and expires at ~1.1 s, the grant reaches client 0 at ~1 s. It holds
 * 800 ms, writing every 200 ms; client 1 takes the lock at 1.3 s and writes every 100 ms.
 *
 * paused-holder.json (-etcd: 3 servers, -redlock: 5): client 0 acquires at once and holds 4 s, writing every
 * second; it is SIGSTOPped at 0.5 s for 3 s (its lease refresh / keep-alive frozen too). Client 1
 * acquires at 2 s, after the lease ran out (etcd revokes an expired lease within half a second),
 * and writes every 500 ms over a 3 s hold; client 0 wakes at 3.5 s and writes.
 */
async function docSchedule(file: string, target: string, resource: Schedule["resource"]): Promise<Schedule> {
  const loaded = await loadSchedule(join(LIBRARIES, file));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return { ...loaded.value, target, resource };
}

const acquisitionPause = (target: string) => docSchedule("acquisition-pause.json", target, "unfenced");
const acquisitionClockStep = (target: string) =>
  docSchedule("acquisition-clock-step.json", target, "unfenced");
const acquisitionSuspend = async (target: string, clocks: "stopped" | "running") => {
  const s = await docSchedule("acquisition-suspend.json", target, "unfenced");
  if (clocks === "stopped") return s;
  return {
    ...s,
    faults: s.faults.map((f) => (f.kind === "pause-in-call" ? { ...f, clocks: undefined } : f)),
  };
};
const lateGrant = (target: string) => docSchedule("late-grant.json", target, "unfenced");
const PAUSED_HOLDER: Record<number, string> = {
  1: "paused-holder.json",
  3: "paused-holder-etcd.json",
  5: "paused-holder-redlock.json",
};
const pausedHolder = (target: string, resource: Schedule["resource"], servers: 1 | 3 | 5) =>
  docSchedule(PAUSED_HOLDER[servers]!, target, resource);

describe.skipIf(missingRedis.length > 0)("Redis lock libraries in client processes", () => {
  it("redlock 5.0.0-beta.2: a pause during acquisition gives a double grant", async () => {
    const r = await run(await acquisitionPause(await adapter("redlock-v5.mjs")));
    expectLateSecondGrant(r);
  });

  it("redlock 5.0.0-beta.2 with the validity check added: the same schedule is safe", async () => {
    const r = await run(await acquisitionPause(await adapter("redlock-v5-checked.mjs")));
    // The stalled acquire is refused (its lock had expired), so client 0 never holds it twice.
    expectOneGrantEach(r);
  });

  it("redlock with the validity check on Date.now(): a step back of the client's clock gives the double grant again", async () => {
    const r = await run(await acquisitionClockStep(await adapter("redlock-v5-checked.mjs")));
    expectLateSecondGrant(r);
  });

  it("redlock with the validity check on the monotonic clock: the same clock step is safe", async () => {
    const r = await run(await acquisitionClockStep(await adapter("redlock-v5-monotonic.mjs")));
    expectOneGrantEach(r);
  });

  it("redlock with the validity check on either clock: a suspend during the acquire gives the double grant", async () => {
    for (const file of ["redlock-v5-checked.mjs", "redlock-v5-monotonic.mjs"]) {
      const r = await run(await acquisitionSuspend(await adapter(file), "stopped"));
      expectLateSecondGrant(r);
      expect(pausesOf(r), r.timeline).toEqual([{ clocks: "stopped", inCall: true }]);
    }
  });

  it("redlock with the validity check on Date.now(): the same pause with the clocks running is safe", async () => {
    const r = await run(await acquisitionSuspend(await adapter("redlock-v5-checked.mjs"), "running"));
    expect(pausesOf(r), r.timeline).toEqual([{ clocks: undefined, inCall: true }]);
    expect(acquiresOk(r.run.ops, 0), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toEqual([]);
  });

  it("a lease lock of one's own, counted from the reply: a late grant gives a stale write", async () => {
    const r = await run(await lateGrant(await adapter("own-lease.mjs")));
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("the lease lock of one's own counted from before the request: the late grant's writes are refused, safe", async () => {
    const r = await run(await lateGrant(await adapter("own-lease-fixed.mjs")));
    expect(acquiresOk(r.run.ops, 0), r.timeline).toHaveLength(1);
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    // Its own lease had run out before its first write: the adapter refused all four.
    expect(
      r.rejectedWrites.filter((w) => w.process === 0),
      r.timeline,
    ).toHaveLength(4);
    expect(r.violations, r.timeline).toEqual([]);
  });

  it("@sesamecare-oss/redlock: the same acquisition pause gives a double grant", async () => {
    const r = await run(await acquisitionPause(await adapter("sesamecare-redlock.mjs")));
    expect(r.violations, r.timeline).toContain("mutual-exclusion");
  });

  it("redlock with the validity check still has no fence: a holder paused after acquiring writes stale data", async () => {
    const r = await run(await pausedHolder(await adapter("redlock-v5-checked.mjs"), "unfenced", 5));
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("redis-semaphore RedlockMutex: a holder SIGSTOPped past its TTL writes after the next holder", async () => {
    const r = await run(
      await pausedHolder(await adapter("redis-semaphore-redlock-mutex.mjs"), "unfenced", 5),
    );
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("redis-semaphore Mutex: a holder SIGSTOPped past its TTL writes after the next holder", async () => {
    const r = await run(await pausedHolder(await adapter("redis-semaphore-mutex.mjs"), "unfenced", 1));
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("redis-semaphore Mutex, fenced (token taken while held, checked by the resource): safe", async () => {
    const r = await run(await pausedHolder(await adapter("redis-semaphore-mutex-fenced.mjs"), "fenced", 1));
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toEqual([]);
    // The fence did the work: the stale holder's writes after waking were rejected.
    expect(
      r.rejectedWrites.map((w) => w.process),
      r.timeline,
    ).toContain(0);
  });
});

describe.skipIf(missingRedis.length > 0)("a token taken after the grant", () => {
  it("simple-redis-mutex: a holder stopped between its SET and its INCR wakes with a token above the next holder's", async () => {
    // paused-between-set-and-incr.json: client 0's second acquire is SIGSTOPped once its SET is
    // written (node-redis writes from a setImmediate), for 1.5 s; client 1 takes the expired key
    // at 1.2 s and its token 2; client 0 wakes at 1.6 s, INCRs to 3 while client 1 holds, and
    // the fenced resource takes its writes and rejects client 1's.
    const r = await run(
      await docSchedule(
        "paused-between-set-and-incr.json",
        await adapter("simple-redis-mutex.mjs"),
        "fenced",
      ),
    );
    expect(pausesOf(r), r.timeline).toEqual([{ clocks: undefined, inCall: true }]);
    const tokens = r.run.ops.flatMap((o) =>
      o.process !== "nemesis" && o.f === "acquire" && o.type === "ok" ? [[o.process, o.token]] : [],
    );
    expect(tokens, r.timeline).toEqual([
      [0, 1n],
      [1, 2n],
      [0, 3n],
    ]);
    expect(r.violations, r.timeline).toEqual(["token-order"]);
    expect(
      r.rejectedWrites.map((w) => w.process),
      r.timeline,
    ).toContain(1);
  });
});

describe.skipIf(missingRedis.length > 0)("a fence kept in a lock server that forgets", () => {
  it("redis-semaphore Mutex, fenced: a crash of its Redis resets the counter, and tokens come again", async () => {
    // crashed-lock-server.json: one client takes the lock over and over; its Redis (no
    // persistence, as lockcheck runs it) is killed at 1.3 s and back at 2.3 s.
    const s = await docSchedule(
      "crashed-lock-server.json",
      await adapter("redis-semaphore-mutex-fenced.mjs"),
      "fenced",
    );
    const r = await run(s);
    expect(r.violations, r.timeline).toEqual(["token-order"]);
    const tokens = r.run.ops
      .filter((o) => o.process === 0 && o.f === "acquire" && o.type === "ok")
      .map((o) => Number((o as { token?: unknown }).token));
    // 1, 2, 3, … before the crash; 1, 2, … again after it.
    expect(tokens.slice(0, 2), r.timeline).toEqual([1, 2]);
    expect(tokens.slice(2), r.timeline).toContain(1);
    // The resource (which keeps its data) remembers the highest token and rejects the repeats.
    expect(r.rejectedWrites.length, r.timeline).toBeGreaterThan(0);
  });
});

describe.skipIf(missingRedis.length > 0)("a library that throws outside a call", () => {
  it("redis-semaphore's default onLockLost kills the paused holder on waking: reported as a warning", async () => {
    const loaded = await loadModule("module:./mutex-default-lost-lock.mjs", FIXTURES);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const r = await runChecked(await pausedHolder(loaded.value.target.name, "unfenced", 1));
    track(r.runId);
    expect(r.run.warnings, `${r.run.warnings.join("\n")}\n${r.timeline}`).toContainEqual(
      expect.stringMatching(
        /^client:0: the library threw outside a call; the client process exits: Error: Lost mutex for key mutex:lock/,
      ),
    );
    // Named as the library's crash, not as a client lockcheck could not drive.
    expect(r.run.crashedByLibrary.map((c) => c.client)).toEqual(["client:0"]);
    expect(r.run.brokenClients).toEqual([]);
  });
});

describe.skipIf(missingRedis.length > 0)("an adapter in TypeScript", () => {
  it("typed with defineLibraryLock, imported by every client process: the paused holder's stale write", async () => {
    const loaded = await loadModule("module:./typed-mutex.ts", FIXTURES);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect(loaded.value.target.name).toBe("redis:typed-mutex");
    const r = await run(await pausedHolder(loaded.value.target.name, "unfenced", 1));
    expect(r.violations, r.timeline).toContain("stale-write");
  });
});

describe.skipIf(missingEtcd.length > 0)("etcd3's lock in client processes", () => {
  it("etcd3 client.lock(): a holder SIGSTOPped past its lease writes after the next holder", async () => {
    const r = await run(await pausedHolder(await adapter("etcd3-lock.mjs"), "unfenced", 3));
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("etcd3 client.lock(), fenced by the key's create revision: safe", async () => {
    const r = await run(await pausedHolder(await adapter("etcd3-lock-fenced.mjs"), "fenced", 3));
    expect(acquiresOk(r.run.ops, 1), r.timeline).toHaveLength(1);
    expect(r.violations, r.timeline).toEqual([]);
    expect(
      r.rejectedWrites.map((w) => w.process),
      r.timeline,
    ).toContain(0);
  });
});
