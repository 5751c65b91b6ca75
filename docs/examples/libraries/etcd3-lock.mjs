// The etcd3 package's client.lock(): a key created under a lease that etcd3 keeps alive in the
// background, for `lockcheck run`. lockcheck starts a 3-member etcd cluster and hands `connect`
// this client's proxies to the members.
import { Etcd3, EtcdLockFailedError } from "etcd3";

/** An etcd3 client of the members, as an application would open it. */
export function connectEtcd(endpoints) {
  return new Etcd3({ hosts: endpoints.map(({ host, port }) => `http://${host}:${port}`), dialTimeout: 2000 });
}

/** etcd lease TTLs are whole seconds. */
export const ttlSeconds = (ttlMs) => Math.max(1, Math.round(ttlMs / 1000));

/**
 * Takes the lock, retrying for up to `ttlMs` while someone else holds it (etcd3's acquire()
 * fails at once when the key exists); false when it stayed held.
 */
export async function acquireWithin(held, ttlMs) {
  for (const deadline = Date.now() + ttlMs; ; await new Promise((r) => setTimeout(r, 100))) {
    try {
      await held.acquire();
      return true;
    } catch (e) {
      if (!(e instanceof EtcdLockFailedError)) throw e; // unknown outcome
      if (Date.now() >= deadline) return false;
    }
  }
}

/** @type {import("lockcheck").LibraryLock} */
export default {
  name: "etcd3-lock",
  servers: "etcd",
  count: 3,
  fencing: false, // as used here: nothing of the grant reaches the resource
  options: { ttlMs: 1000, callTimeoutMs: 2000 },
  connect({ endpoints }) {
    const client = connectEtcd(endpoints);
    return {
      async acquire(lock, ttlMs) {
        const held = client.lock(lock).ttl(ttlSeconds(ttlMs));
        return (await acquireWithin(held, ttlMs)) ? { held } : null;
      },
      async release({ held }) {
        await held.release(); // revokes the lease, which deletes the key
        return true; // etcd3 does not say whether the lease had already expired
      },
      async close() {
        client.close();
      },
    };
  },
};
