// npm `simple-redis-mutex` 3.0.0 on node-redis 5, as it is. Its fencing token is an INCR of a
// global counter sent after the SET NX succeeded, in a second round trip: a holder paused
// between the two wakes with a token higher than the next holder's, and a fenced resource takes
// the stale holder for the newer one (token-order: token-inverted).
import { createClient } from "redis";
import { tryLock } from "simple-redis-mutex";

/** @type {import("lockcheck").LibraryLock} */
export default {
  name: "simple-redis-mutex",
  servers: "redis",
  fencing: true, // release.fencingToken
  options: { ttlMs: 1000 },
  async connect({ endpoints }) {
    const { host, port } = endpoints[0];
    const redis = createClient({ socket: { host, port, reconnectStrategy: 50 } });
    redis.on("error", () => {}); // each call's own result says what went wrong
    await redis.connect();
    return {
      async acquire(lock, ttlMs) {
        const [held, release] = await tryLock(redis, lock, { timeout: ttlMs });
        return held ? { release, token: release.fencingToken } : null;
      },
      async release({ release }) {
        await release();
        return true; // the library does not say whether the key was still ours
      },
      async close() {
        await redis.quit().catch(() => {});
      },
    };
  },
};
