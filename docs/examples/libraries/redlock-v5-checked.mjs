// npm `redlock` 5.0.0-beta.2 with the validity check its acquire() leaves out: a lock whose
// expiration (start of the attempt + TTL − drift, as the library computes it) has already passed
// when acquire() returns is not held; give it back and say so. This closes the acquisition-pause
// double grant; it cannot stop a holder that pauses *after* this check (Redlock has no token).
import Redlock, { ExecutionError } from "redlock";
import unchecked, { connectAll, releaseLock } from "./redlock-v5.mjs";

/** @type {import("lockcheck").LibraryLock} */
export default {
  ...unchecked,
  name: "redlock-v5-checked",
  connect({ endpoints }) {
    const clients = connectAll(endpoints);
    const redlock = new Redlock(clients, { retryCount: 3, retryDelay: 100, retryJitter: 50 });
    return {
      async acquire(lock, ttlMs) {
        let held;
        try {
          held = await redlock.acquire([lock], ttlMs);
        } catch (e) {
          if (e instanceof ExecutionError) return null;
          throw e;
        }
        if (held.expiration > Date.now()) return { lock: held };
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
