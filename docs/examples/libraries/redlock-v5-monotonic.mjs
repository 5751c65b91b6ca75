// npm `redlock` 5.0.0-beta.2 with the validity check done on the monotonic clock: the time the
// whole acquire() took is measured with performance.now(), which a step of the wall clock (NTP,
// an operator) does not move, so the check cannot be fooled the way a check of
// `lock.expiration` against Date.now() is. Like every Redlock, it still has no token.
import Redlock, { ExecutionError } from "redlock";
import unchecked, { connectAll, releaseLock } from "./redlock-v5.mjs";

/** Redlock's own allowance for clock drift between nodes: 1% of the TTL plus 2 ms. */
const driftMs = (ttlMs) => Math.round(0.01 * ttlMs) + 2;

/** @type {import("lockcheck").LibraryLock} */
export default {
  ...unchecked,
  name: "redlock-v5-monotonic",
  connect({ endpoints }) {
    const clients = connectAll(endpoints);
    const redlock = new Redlock(clients, { retryCount: 3, retryDelay: 100, retryJitter: 50 });
    return {
      async acquire(lock, ttlMs) {
        const start = performance.now();
        let held;
        try {
          held = await redlock.acquire([lock], ttlMs);
        } catch (e) {
          if (e instanceof ExecutionError) return null;
          throw e;
        }
        if (performance.now() - start < ttlMs - driftMs(ttlMs)) return { lock: held };
        await held.release().catch(() => {});
        return null;
      },
      release: releaseLock,
      async close() {
        for (const c of clients) c.disconnect();
      },
    };
  },
};
