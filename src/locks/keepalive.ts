/**
 * A background renewal loop (etcd lease keep-alive, ZooKeeper session heartbeat) started
 * when a lock is requested and stopped when it is released. It sleeps on the client's own
 * timers, so a paused client's loop freezes with it — exactly how a GC pause lets a lease
 * expire under a holder that still believes it holds the lock.
 */
import type { LockEnv } from "../env/env.js";

export interface Renewal {
  stop(): void;
}

/**
 * Calls `renew` every `intervalMs` until stopped or until `renew` resolves to false (the
 * lease or session is gone; renewing it further is pointless).
 */
export function startRenewal(env: LockEnv, intervalMs: number, renew: () => Promise<boolean>): Renewal {
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      await env.sleep(intervalMs);
      if (stopped) return;
      if (!(await renew())) return;
    }
  };
  void loop();
  return {
    stop() {
      stopped = true;
    },
  };
}
