/**
 * Sessions of a real target for runs at once: the campaign's own, and more opened as runs
 * overlap (each its own servers), all closed together. If another cannot be opened, runs wait
 * for a free one instead: overlap is a speed-up, never a reason to fail.
 */
import { checkOps } from "../checkers/index.js";
import type { Op } from "../history/op.js";
import { err, ok, type Result } from "../result.js";
import { changesServerClock } from "../schedule/faults/index.js";
import type { Schedule } from "../schedule/schedule.js";
import type { ServerPlacement, Target, TargetSession, TargetSessionOptions } from "../targets/target.js";
import type { ViolationKind } from "./same-violation.js";

export interface SessionPool {
  /** Runs `fn` on a free session (opening one, up to `max`, when none is free). */
  use<T>(fn: (s: TargetSession) => Promise<T>): Promise<T>;
  /** Sessions opened so far, the first included. */
  size(): number;
  /** Pids of every session's servers. */
  serverPids(): number[];
  close(): Promise<void>;
}

export function sessionPool(
  first: TargetSession,
  open: () => Promise<TargetSession>,
  max: number,
): SessionPool {
  const all: TargetSession[] = [first];
  const idle: TargetSession[] = [first];
  const waiting: ((s: TargetSession) => void)[] = [];
  let opening = 0;
  let canOpen = true;

  const take = async (): Promise<TargetSession> => {
    const free = idle.pop();
    if (free !== undefined) return free;
    if (canOpen && all.length + opening < max) {
      opening++;
      try {
        const s = await open();
        all.push(s);
        return s;
      } catch {
        canOpen = false;
      } finally {
        opening--;
      }
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const give = (s: TargetSession): void => {
    const next = waiting.shift();
    if (next !== undefined) next(s);
    else idle.push(s);
  };

  return {
    async use(fn) {
      const s = await take();
      try {
        return await fn(s);
      } finally {
        give(s);
      }
    },
    size: () => all.length,
    serverPids: () => all.flatMap((s) => s.serverPids()),
    close: async () => {
      await Promise.all(all.map((s) => s.close()));
    },
  };
}

/**
 * The session options for runs of `schedule`: its resource and servers, the clock shim only when
 * it changes a server's clock (client clock faults need no shim, nor gcc to build it), and where
 * the servers run.
 */
export function sessionOptionsFor(schedule: Schedule, where: ServerPlacement = {}): TargetSessionOptions {
  return {
    resource: schedule.resource,
    servers: schedule.options.servers,
    clockFaults: schedule.faults.some(changesServerClock),
    ...(where.cluster === undefined ? {} : { cluster: where.cluster }),
    ...(where.docker === undefined ? {} : { docker: where.docker }),
  };
}

/**
 * A pool of `target`'s sessions, the first opened now; null if the target has none. Servers or
 * containers that cannot start (a missing binary, an image not on the engine) are the error.
 */
export async function openSessionPool(
  target: Target,
  opts: TargetSessionOptions,
  max: number,
): Promise<Result<SessionPool | null, string>> {
  const open = target.openSession?.bind(target);
  if (open === undefined) return ok(null);
  try {
    return ok(sessionPool(await open(opts), () => open(opts), max));
  } catch (e) {
    return err(e instanceof Error ? e.message : String(e));
  }
}

/**
 * Runs a shrink candidate on a free session of `pool` (shrink-real.ts `runOnServers`): it
 * ends at its first `kind` violation, or as soon as it is abandoned.
 */
export function runOnPool(
  pool: SessionPool,
): (s: Schedule, kind: ViolationKind, abandoned?: AbortSignal) => Promise<Op[]> {
  return (s, kind, abandoned) =>
    pool.use(async (session) => {
      const stop = (ops: Op[]) =>
        abandoned?.aborted === true || checkOps(ops, [kind]).some((v) => v.valid === false);
      return (await session.run(s, stop)).ops;
    });
}
