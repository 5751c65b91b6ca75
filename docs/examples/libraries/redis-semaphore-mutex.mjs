// redis-semaphore's Mutex (one Redis node) as it is, for `lockcheck run`.
// lockcheck starts the redis-server, runs each client in its own process and hands `connect`
// the address of that client's proxy to the server (so partitions and delays reach it).
import { Redis } from "ioredis";
import { Mutex } from "redis-semaphore";

/** One ioredis connection to the first lock server, as an application would open it. */
export function connectRedis({ host, port }) {
  const redis = new Redis({ host, port, maxRetriesPerRequest: 1 });
  redis.on("error", () => {}); // connection errors surface in each call's own result
  return redis;
}

/** @type {import("lockcheck").LibraryLock} */
export default {
  name: "redis-semaphore-mutex",
  servers: "redis",
  fencing: false, // redis-semaphore gives no fencing token
  options: { ttlMs: 1000 },
  connect({ endpoints }) {
    const redis = connectRedis(endpoints[0]);
    return {
      async acquire(lock, ttlMs) {
        const mutex = new Mutex(redis, lock, {
          lockTimeout: ttlMs, // auto-refreshed every 0.8 × ttlMs while held
          acquireTimeout: ttlMs, // give up (→ "denied") after one TTL of retries
          retryInterval: 50,
          onLockLost() {}, // the default throws from a timer; a real service would stop its work here
        });
        return (await mutex.tryAcquire()) ? { mutex } : null;
      },
      async release({ mutex }) {
        const held = mutex.isAcquired; // false once a refresh found the lock gone
        await mutex.release();
        return held;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
