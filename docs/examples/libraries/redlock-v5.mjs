// npm `redlock` 5.0.0-beta.2 (Redlock over 5 independent Redis nodes), as it is.
// Its acquire() does not check that the lock is still valid when the quorum's replies arrive
// (the Redlock algorithm's "validity time" step): a client stalled while acquiring can be told
// it holds a lock that has already expired and been taken by another client.
import { Redis } from "ioredis";
import Redlock, { ExecutionError } from "redlock";

/** One ioredis connection per Redis node, as an application would open them. */
export function connectAll(endpoints) {
  return endpoints.map(({ host, port }) => {
    const redis = new Redis({ host, port, maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
    return redis;
  });
}

/** Releases a Redlock lock: false when it was no longer held on a quorum of nodes. */
export async function releaseLock({ lock }) {
  try {
    await lock.release();
    return true;
  } catch (e) {
    if (e instanceof ExecutionError) return false;
    throw e;
  }
}

/** @type {import("lockcheck").LibraryLock} */
export default {
  name: "redlock-v5",
  servers: "redis",
  count: 5,
  fencing: false, // Redlock has no fencing token
  options: { ttlMs: 1000 },
  connect({ endpoints }) {
    const clients = connectAll(endpoints);
    const redlock = new Redlock(clients, { retryCount: 3, retryDelay: 100, retryJitter: 50 });
    return {
      async acquire(lock, ttlMs) {
        try {
          return { lock: await redlock.acquire([lock], ttlMs) };
        } catch (e) {
          // No quorum after the retries: Redlock has already undone the minority it got.
          if (e instanceof ExecutionError) return null;
          throw e;
        }
      },
      release: releaseLock,
      async close() {
        for (const c of clients) c.disconnect();
      },
    };
  },
};
