// redis-semaphore's RedlockMutex (Redlock over 5 independent Redis nodes, auto-refreshed).
// No fencing token, and none can be made soundly across independent nodes: see docs/libraries.md.
import { RedlockMutex } from "redis-semaphore";
import { connectAll } from "./redlock-v5.mjs";

/** @type {import("lockcheck").LibraryLock} */
export default {
  name: "redis-semaphore-redlock-mutex",
  servers: "redis",
  count: 5,
  fencing: false,
  options: { ttlMs: 1000 },
  connect({ endpoints }) {
    const clients = connectAll(endpoints);
    return {
      async acquire(lock, ttlMs) {
        const mutex = new RedlockMutex(clients, lock, {
          lockTimeout: ttlMs,
          acquireTimeout: ttlMs,
          retryInterval: 50,
          onLockLost() {},
        });
        return (await mutex.tryAcquire()) ? { mutex } : null;
      },
      async release({ mutex }) {
        const held = mutex.isAcquired;
        await mutex.release();
        return held;
      },
      async close() {
        for (const c of clients) c.disconnect();
      },
    };
  },
};
