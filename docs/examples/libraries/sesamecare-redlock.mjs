// @sesamecare-oss/redlock (a maintained fork of redlock v5), as it is. Like the original, its
// acquire() returns a lock without checking that it is still valid when the quorum answered.
import { ExecutionError, Redlock } from "@sesamecare-oss/redlock";
import { connectAll } from "./redlock-v5.mjs";

/** @type {import("lockcheck").LibraryLock} */
export default {
  name: "sesamecare-redlock",
  servers: "redis",
  count: 5,
  fencing: false, // no fencing token
  options: { ttlMs: 1000 },
  connect({ endpoints }) {
    const clients = connectAll(endpoints);
    const redlock = new Redlock(clients, { retryCount: 3, retryDelay: 100, retryJitter: 50 });
    return {
      async acquire(lock, ttlMs) {
        try {
          return { lock: await redlock.acquire([lock], ttlMs) };
        } catch (e) {
          if (e instanceof ExecutionError) return null;
          throw e;
        }
      },
      async release({ lock }) {
        try {
          await lock.release();
          return true;
        } catch (e) {
          if (e instanceof ExecutionError) return false;
          throw e;
        }
      },
      async close() {
        for (const c of clients) c.disconnect();
      },
    };
  },
};
