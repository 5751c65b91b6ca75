// redis-semaphore's Mutex, fenced. The library has no fencing token, so the adapter makes one
// the only sound way: right after acquiring, one Lua script on the lock's own Redis checks that
// the mutex key still holds our identifier and only then INCRements a counter. A holder whose
// lease already ran out gets no token (it is told it does not hold the lock); every token is
// taken while its holder really held the lock, so a later holder always has a higher one.
// The resource (lockcheck's `fenced` one, or yours) must reject tokens below the highest seen.
import { Mutex } from "redis-semaphore";
import unfenced, { connectRedis } from "./redis-semaphore-mutex.mjs";

// redis-semaphore keeps a Mutex named `lock` under the key `mutex:<lock>`.
const TOKEN_IF_HELD = `
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("INCR", KEYS[2]) end
return false`;

/** @type {import("lockcheck").LibraryLock} */
export default {
  ...unfenced,
  name: "redis-semaphore-mutex-fenced",
  fencing: true,
  connect({ endpoints }) {
    const redis = connectRedis(endpoints[0]);
    return {
      async acquire(lock, ttlMs) {
        const mutex = new Mutex(redis, lock, {
          lockTimeout: ttlMs,
          acquireTimeout: ttlMs,
          retryInterval: 50,
          onLockLost() {},
        });
        if (!(await mutex.tryAcquire())) return null;
        const token = await redis.eval(TOKEN_IF_HELD, 2, `mutex:${lock}`, `fence:${lock}`, mutex.identifier);
        if (token === null) {
          await mutex.release(); // lost before we could take a token: we do not hold it
          return null;
        }
        return { mutex, token: String(token) };
      },
      async release({ mutex }) {
        const held = mutex.isAcquired;
        await mutex.release();
        return held;
      },
      async close() {
        redis.disconnect();
      },
    };
  },
};
