/**
 * The world a `plain:` target runs in: the schedule's clients run concurrently in this
 * process, in real time, each through one client of the user's lock (see plain-lock.ts),
 * with the same workload driver as every other world (src/workload/client.ts).
 *
 * Faults on clients are applied (see plain-lock.ts for what a pause means here); faults on
 * anything else are skipped and counted. Calls still open when the run ends (2 × horizon, or
 * a crashed client) complete as `info`. Everything started here — timers and user clients —
 * is closed before `runPlain` settles.
 */

import type { LockEnv, ResourceWrite, ResourceWriteResult } from "../env/env.js";
import { fanOut } from "../env/fan-out.js";
import type { ClientOp, NemesisF, Op } from "../history/op.js";
import type { LockAlgorithm, LockHandle } from "../locks/lock.js";
import {
  type PlainGrant,
  type PlainLock,
  type PlainLockClient,
  plainClientProblem,
  tokenOf,
} from "../locks/plain-lock.js";
import type { Checkpoint, Fault, Schedule } from "../schedule/schedule.js";
import type { TargetRun } from "../targets/target.js";
import { type ClientRecorder, runClient } from "../workload/client.js";

/** A client's pause/crash state: calls wait at `pass()` while it is paused, forever once crashed. */
interface Gate {
  paused: number;
  crashed: boolean;
  waiters: Array<() => void>;
}

const NEVER = new Promise<never>(() => {});

function pass(g: Gate): Promise<void> {
  if (g.crashed) return NEVER;
  if (g.paused === 0) return Promise.resolve();
  return new Promise((resolve) => g.waiters.push(resolve));
}

function resume(g: Gate): void {
  g.paused = Math.max(0, g.paused - 1);
  if (g.paused > 0 || g.crashed) return;
  const ws = g.waiters.splice(0);
  for (const w of ws) w();
}

/** A client's wall clock: real time plus jumps, running at (1 + rate) from a drift's start. */
interface Clock {
  offsetMs: number;
  rate: number;
  driftFrom: number;
}

function clockNow(c: Clock): number {
  const real = Date.now();
  return real + c.offsetMs + (real - c.driftFrom) * c.rate;
}

const delay = (ms: number, timers: Set<NodeJS.Timeout>) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(
      () => {
        timers.delete(t);
        resolve();
      },
      Math.max(0, ms),
    );
    timers.add(t);
  });

type Outcome<T> = { kind: "ok"; value: T } | { kind: "error"; error: unknown } | { kind: "timeout" };

async function withTimeout<T>(p: Promise<T>, ms: number, timers: Set<NodeJS.Timeout>): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), ms);
    timers.add(timer);
  });
  const settled = p.then(
    (value): Outcome<T> => ({ kind: "ok", value }),
    (error: unknown): Outcome<T> => ({ kind: "error", error }),
  );
  const r = await Promise.race([settled, timeout]);
  if (timer) {
    clearTimeout(timer);
    timers.delete(timer);
  }
  return r;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The user's client as a LockAlgorithm, so the shared workload driver can run it. */
function adapt(
  lock: PlainLock,
  client: PlainLockClient,
  callTimeoutMs: number,
  timers: Set<NodeJS.Timeout>,
): LockAlgorithm {
  return {
    name: lock.name,
    servers: "redis",
    fencing: lock.fencing,
    async acquire(_env, req) {
      const call = Promise.resolve().then(() => client.acquire(req.lock, req.ttlMs, req.owner));
      const r = await withTimeout(call, Math.max(callTimeoutMs, req.ttlMs), timers);
      if (r.kind === "timeout") {
        // If it is granted after all, give it back rather than jam the lock for the others.
        call.then((g) => (g ? client.release(g) : false)).catch(() => {});
        return { outcome: "unknown", reason: "timeout" };
      }
      if (r.kind === "error") return { outcome: "unknown", reason: describe(r.error) };
      if (r.value === null) return { outcome: "denied", reason: "held" };
      const token = tokenOf(r.value) ?? null;
      return { outcome: "granted", token, handle: { request: req, state: r.value } };
    },
    async release(_env, handle: LockHandle) {
      const r = await withTimeout(
        Promise.resolve().then(() => client.release(handle.state as PlainGrant)),
        callTimeoutMs,
        timers,
      );
      if (r.kind === "timeout") return { outcome: "unknown", reason: "timeout" };
      if (r.kind === "error") return { outcome: "unknown", reason: describe(r.error) };
      return r.value ? { outcome: "released" } : { outcome: "not-held" };
    },
  };
}

export async function runPlain(schedule: Schedule, lock: PlainLock): Promise<TargetRun> {
  const { options } = schedule;
  const ops: Op[] = [];
  const t0 = process.hrtime.bigint();
  const nowNs = () => Number(process.hrtime.bigint() - t0);
  const timers = new Set<NodeJS.Timeout>();
  const open = new Map<number, { process: number; fields: object }>();
  let nextCall = 0;

  const nemesis = (f: NemesisF, node: string, value: unknown) => {
    ops.push({ index: ops.length, time: nowNs(), process: "nemesis", type: "info", f, node, value });
  };
  const recorder = (process: number): ClientRecorder => ({
    invoke(fields) {
      const id = nextCall++;
      open.set(id, { process, fields });
      ops.push({ index: ops.length, time: nowNs(), process, type: "invoke", ...fields } as ClientOp);
      return id;
    },
    complete(id, type, fields) {
      const call = open.get(id);
      if (!call) return;
      open.delete(id);
      ops.push({
        index: ops.length,
        time: nowNs(),
        process: call.process,
        type,
        ...call.fields,
        ...fields,
      } as ClientOp);
    },
  });

  // lockcheck's own resource, for clients that do not write to one of their own. It answers
  // an accepted write with its apply order (history field `seq`), as lockcheck's resources do.
  const highest = new Map<string, bigint>();
  let applied = 0n;
  const memoryWrite = (w: ResourceWrite): ResourceWriteResult => {
    if (schedule.resource !== "unfenced" && w.token !== null) {
      const top = highest.get(w.lock);
      if (top !== undefined && w.token < top) return { accepted: false };
      highest.set(w.lock, w.token);
    }
    applied++;
    return { accepted: true, seq: applied };
  };

  const gates = new Map<number, Gate>();
  const clocks = new Map<number, Clock>();
  const pauseAt: Array<Extract<Fault, { kind: "pause-at" }>> = [];
  const reached = new Map<string, number>();
  let ignoredFaults = 0;
  for (const c of schedule.clients) {
    gates.set(c.id, { paused: 0, crashed: false, waiters: [] });
    clocks.set(c.id, { offsetMs: 0, rate: 0, driftFrom: Date.now() });
  }
  const clientOf = (node: string): number | undefined => {
    const m = /^client:(\d+)$/.exec(node);
    return m ? Number(m[1]) : undefined;
  };

  const faultTimers: Array<() => void> = [];
  const at = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  for (const f of schedule.faults) {
    if (f.kind === "pause-at") {
      pauseAt.push(f);
      continue;
    }
    const node = "node" in f ? f.node : undefined;
    const id = node === undefined ? undefined : clientOf(node);
    const gate = id === undefined ? undefined : gates.get(id);
    const clock = id === undefined ? undefined : clocks.get(id);
    if (node === undefined || gate === undefined || clock === undefined) {
      ignoredFaults++;
      continue;
    }
    if (f.kind === "pause") {
      faultTimers.push(() =>
        at(f.at, () => {
          gate.paused++;
          nemesis("pause", node, { durationMs: f.durationMs });
          at(f.durationMs, () => {
            nemesis("resume", node, { durationMs: f.durationMs });
            resume(gate);
          });
        }),
      );
    } else if (f.kind === "crash") {
      faultTimers.push(() =>
        at(f.at, () => {
          gate.crashed = true;
          nemesis("crash", node, { restartAfterMs: null });
        }),
      );
    } else if (f.kind === "clock-jump") {
      faultTimers.push(() =>
        at(f.at, () => {
          clock.offsetMs += f.deltaMs;
          nemesis("clock-jump", node, { deltaMs: f.deltaMs });
        }),
      );
    } else if (f.kind === "clock-drift") {
      faultTimers.push(() =>
        at(f.at, () => {
          const now = clockNow(clock);
          clock.rate = f.rate;
          clock.driftFrom = Date.now();
          clock.offsetMs = now - Date.now();
          nemesis("clock-drift", node, { rate: f.rate });
        }),
      );
    } else ignoredFaults++;
  }

  const clients = new Map<number, PlainLockClient>();
  try {
    for (const c of schedule.clients) {
      const clock = clocks.get(c.id)!;
      const client = await lock.connect({ clientId: c.id, now: () => clockNow(clock) });
      const problem = plainClientProblem(client);
      if (problem !== null) throw new TypeError(`plain lock ${lock.name}: ${problem}`);
      clients.set(c.id, client);
    }
    for (const start of faultTimers) start();

    const runs = schedule.clients.map(async (plan) => {
      const gate = gates.get(plan.id)!;
      const clock = clocks.get(plan.id)!;
      const client = clients.get(plan.id)!;
      const grants = new Map<string, PlainGrant>();
      const algorithm = adapt(lock, client, options.callTimeoutMs, timers);
      const env: LockEnv = {
        clientId: plan.id,
        now: () => clockNow(clock),
        async sleep(ms) {
          await delay(ms / (1 + clock.rate), timers);
          await pass(gate);
        },
        redis: [],
        redisAll: fanOut([]),
        etcd: null,
        zk: null,
        resource: {
          async write(w, opts) {
            await pass(gate);
            const grant = grants.get(w.grant);
            if (client.write === undefined || grant === undefined) return { ok: true, value: memoryWrite(w) };
            const r = await withTimeout(
              Promise.resolve().then(() => client.write!(grant, w.value)),
              opts?.timeoutMs ?? options.callTimeoutMs,
              timers,
            );
            await pass(gate);
            if (r.kind === "ok") return { ok: true, value: { accepted: r.value } };
            return {
              ok: false,
              error: {
                kind: "timeout",
                node: "resource",
                detail: r.kind === "error" ? describe(r.error) : "timeout",
              },
            };
          },
        },
        async checkpoint(point: Checkpoint) {
          const key = `${plan.id}/${point}`;
          const n = reached.get(key) ?? 0;
          reached.set(key, n + 1);
          for (const f of pauseAt) {
            if (f.client !== plan.id || f.checkpoint !== point || f.occurrence !== n) continue;
            const node = `client:${plan.id}`;
            gate.paused++;
            nemesis("pause", node, { checkpoint: point, occurrence: n, durationMs: f.durationMs });
            at(f.durationMs, () => {
              nemesis("resume", node, { checkpoint: point, occurrence: n, durationMs: f.durationMs });
              resume(gate);
            });
          }
          await pass(gate);
        },
      };
      // The workload driver sees the grant's handle; keep the user's grant by grant id for writes.
      const tracking: LockAlgorithm = {
        ...algorithm,
        async acquire(e, req) {
          const r = await algorithm.acquire(e, req);
          await pass(gate);
          if (r.outcome === "granted") grants.set(req.owner, r.handle.state as PlainGrant);
          return r;
        },
        async release(e, handle) {
          const r = await algorithm.release(e, handle);
          await pass(gate);
          return r;
        },
      };
      await runClient(env, tracking, plan, options, recorder(plan.id));
    });
    await Promise.race([Promise.all(runs), delay(2 * options.horizonMs, timers)]);
  } finally {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    for (const g of gates.values()) g.crashed = true; // nothing runs on after the run
    await Promise.all([...clients.values()].map((c) => c.close?.().catch(() => {})));
  }
  for (const [id, call] of [...open.entries()].sort((a, b) => a[0] - b[0])) {
    ops.push({
      index: ops.length,
      time: nowNs(),
      process: call.process,
      type: "info",
      ...call.fields,
      error: "run ended",
    } as ClientOp);
    open.delete(id);
  }
  return { ops, stats: { ignoredFaults, durationMs: Math.round(nowNs() / 1e6) } };
}
