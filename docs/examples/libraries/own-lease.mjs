// A lease lock of one's own, as many teams write it: SET NX PX, and a check before each write
// that the lease has not run out yet. The lease is counted from when the reply came, so a grant
// that reaches its client late leaves it less time than it believes (delay faults find this).
import { Redis } from "ioredis";

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

export class LeaseLock {
  constructor(redis, key, ttlMs) {
    this.redis = redis;
    this.key = key;
    this.ttlMs = ttlMs;
    this.owner = `${process.pid}:${Math.random()}`;
  }
  async tryAcquire() {
    const ok = await this.redis.set(this.key, this.owner, "PX", this.ttlMs, "NX");
    if (ok !== "OK") return false;
    this.expiresAt = Date.now() + this.ttlMs; // the bug: the lease began when the server set the key
    return true;
  }
  isHeld() {
    return Date.now() < this.expiresAt;
  }
  async release() {
    return (await this.redis.eval(RELEASE, 1, this.key, this.owner)) === 1;
  }
}

/** The store the lock protects: a key on the same server, written only while the lease lasts. */
export function ownLeaseAdapter(name, Lock) {
  /** @type {import("lockcheck").LibraryLock} */
  return {
    name,
    servers: "redis",
    fencing: false,
    options: { ttlMs: 1000 },
    async connect({ endpoints }) {
      const redis = new Redis({ ...endpoints[0], maxRetriesPerRequest: 1, lazyConnect: true });
      redis.on("error", () => {});
      await redis.connect(); // ready before the run starts: a delay then slows the lock's own calls
      return {
        async acquire(lock, ttlMs) {
          const held = new Lock(redis, lock, ttlMs);
          return (await held.tryAcquire()) ? { held } : null;
        },
        async release({ held }) {
          return held.release();
        },
        async write({ held }, value) {
          if (!held.isHeld()) return false;
          await redis.set(`store:${held.key}`, value);
          return true;
        },
        async close() {
          redis.disconnect();
        },
      };
    },
  };
}

export default ownLeaseAdapter("own-lease", LeaseLock);
