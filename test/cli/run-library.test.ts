/**
 * The pure parts of running a library adapter: recognising an adapter module's export, which
 * faults can reach servers lockcheck does not run, and when `run` refuses (exit 2) or drops and
 * counts them.
 */
import { describe, expect, it } from "vitest";
import { prepareSchedule } from "../../src/api/real-run-plan.js";
import { fuzz } from "../../src/index.js";
import { isLibraryLock } from "../../src/locks/library-lock.js";
import { isPlainLock, plainClientProblem } from "../../src/locks/plain-lock.js";
import { splitFaultsForExternalServers } from "../../src/real/reachable-faults.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";

const clientPause: Fault = { kind: "pause", node: "client:0", at: 10, durationMs: 100 };
const serverPause: Fault = { kind: "pause", node: "server:0", at: 10, durationMs: 100 };
const pauseAt: Fault = { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 50 };
const clientClock: Fault = { kind: "clock-jump", node: "client:1", at: 5, deltaMs: 900 };
const leaderCrash: Fault = { kind: "crash", node: "server:leader", at: 5, restartAfterMs: null };
const linkCut: Fault = {
  kind: "partition",
  at: 0,
  durationMs: 10,
  a: ["client:0"],
  b: ["server:1"],
  oneWay: false,
};
const resourceCut: Fault = { ...linkCut, b: ["resource"] };
const replyDelay: Fault = {
  kind: "delay",
  from: "server:0",
  to: "client:0",
  at: 0,
  durationMs: 10,
  extraMs: 5,
};

const external = {
  kind: "redis" as const,
  flag: "--redis-endpoints" as const,
  endpoints: [{ host: "127.0.0.1", port: 6379 }],
};

function scheduleWith(faults: Fault[]): Schedule {
  return {
    version: 1,
    target: "redis:some-library",
    resource: "unfenced",
    seed: 1,
    options: {
      lockName: "lock",
      ttlMs: 1000,
      callTimeoutMs: 500,
      horizonMs: 4000,
      latencyMs: { min: 0, max: 0 },
      lossRate: 0,
      servers: 5,
    },
    clients: [{ id: 0, cycles: [] }],
    faults,
  };
}

describe("library adapter modules", () => {
  it("a library adapter names its servers; a plain lock does not", () => {
    const connect = () => ({ acquire: async () => null, release: async () => true });
    const library = { name: "x", servers: "redis", fencing: false, connect };
    expect(isLibraryLock(library)).toBe(true);
    expect(isLibraryLock({ ...library, servers: "etcd", count: 3 })).toBe(true);
    expect(isLibraryLock({ name: "x", fencing: false, connect })).toBe(false);
    expect(isPlainLock({ name: "x", fencing: false, connect })).toBe(true);
    expect(isLibraryLock({ ...library, servers: "zk" })).toBe(false);
    expect(isLibraryLock({ ...library, count: 0 })).toBe(false);
    expect(isLibraryLock({ ...library, count: 1.5 })).toBe(false);
    expect(isLibraryLock({ ...library, renews: true })).toBe(true);
    expect(isLibraryLock({ ...library, renews: false })).toBe(true);
    expect(isLibraryLock({ ...library, renews: "yes" })).toBe(false);
    expect(isLibraryLock({ ...library, renews: 1 })).toBe(false);
  });

  it("what connect() returns must be a client: acquire and release functions, write and close optional", () => {
    const acquire = async () => null;
    const release = async () => true;
    expect(plainClientProblem({ acquire, release })).toBeNull();
    expect(
      plainClientProblem({ acquire, release, write: async () => true, close: async () => {} }),
    ).toBeNull();
    expect(plainClientProblem({ release })).toBe(
      "connect() returned a client whose acquire is missing; expected a function acquire(…)",
    );
    expect(plainClientProblem({ acquire, release: "yes" })).toBe(
      "connect() returned a client whose release is a string; expected a function release(…)",
    );
    expect(plainClientProblem({ acquire, release, close: 1 })).toBe(
      "connect() returned a client whose close is a number; expected a function close(…) or none",
    );
    expect(plainClientProblem(undefined)).toBe(
      "connect() returned undefined; expected a client { acquire, release, write?, close? }",
    );
    expect(plainClientProblem(null)).toMatch(/^connect\(\) returned null;/);
  });

  it("passed as an object to the API, it is refused with the way to pass it", async () => {
    const connect = () => ({ acquire: async () => null, release: async () => true });
    const library = { name: "x", servers: "redis" as const, fencing: false, connect };
    await expect(fuzz({ target: library, runs: 1 })).rejects.toThrow(
      /^fuzz: target: library adapter "x": .* pass "module:<path to the adapter>"/,
    );
  });
});

describe("faults on servers lockcheck does not run", () => {
  it("keeps client faults and resource links, drops server faults and server links", () => {
    const all = [
      clientPause,
      serverPause,
      pauseAt,
      clientClock,
      leaderCrash,
      linkCut,
      resourceCut,
      replyDelay,
    ];
    expect(splitFaultsForExternalServers(all)).toEqual({
      kept: [clientPause, pauseAt, clientClock, resourceCut],
      ignored: [serverPause, leaderCrash, linkCut, replyDelay],
    });
  });

  it("a generated schedule: server faults of reachable categories are dropped and counted", () => {
    const r = prepareSchedule(scheduleWith([clientPause, serverPause]), {
      external,
      moduleOptions: undefined,
      categories: ["pause"],
      allowIgnoredFaults: false,
    });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.schedule.faults).toEqual([clientPause]);
    expect(r.value.ignored).toEqual([serverPause]);
    // The schedule records as many servers as were given.
    expect(r.value.schedule.options.servers).toBe(1);
  });

  it("categories that cannot reach at all are refused unless allowed", () => {
    const opts = { external, moduleOptions: undefined, categories: ["pause", "delay"] as const };
    const refused = prepareSchedule(scheduleWith([clientPause]), {
      ...opts,
      categories: [...opts.categories],
      allowIgnoredFaults: false,
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.field).toBe("--faults");
      expect(refused.error.message).toContain(
        "delay cannot reach servers you run yourself (--redis-endpoints)",
      );
    }
    const allowed = prepareSchedule(scheduleWith([clientPause, replyDelay]), {
      ...opts,
      categories: [...opts.categories],
      allowIgnoredFaults: true,
    });
    expect(allowed.ok && allowed.value.ignored).toEqual([replyDelay]);
  });

  it("a given schedule with any unreachable fault is refused unless allowed", () => {
    const s = scheduleWith([clientPause, linkCut]);
    const refused = prepareSchedule(s, {
      external,
      moduleOptions: undefined,
      categories: undefined,
      allowIgnoredFaults: false,
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.error.message).toMatch(/^1 fault of the schedule .*--allow-ignored-faults/);
    const clean = prepareSchedule(scheduleWith([clientPause]), {
      external,
      moduleOptions: undefined,
      categories: undefined,
      allowIgnoredFaults: false,
    });
    expect(clean.ok && clean.value.ignored).toEqual([]);
  });

  it("on servers lockcheck starts, nothing is dropped", () => {
    const s = scheduleWith([serverPause, linkCut]);
    const r = prepareSchedule(s, {
      external: null,
      moduleOptions: undefined,
      categories: ["pause"],
      allowIgnoredFaults: false,
    });
    expect(r.ok && r.value).toEqual({ schedule: s, ignored: [] });
  });
});
