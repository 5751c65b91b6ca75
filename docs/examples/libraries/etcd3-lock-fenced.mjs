// The etcd3 package's client.lock(), fenced by the lock key's create revision: etcd's revision
// only grows, so a later holder's key always has a higher one. etcd3's Lock does not return it,
// so the adapter reads the key right after acquiring and takes its create revision only if the
// key is still attached to our lease (otherwise it expired and someone else's key is there).
import unfenced, { acquireWithin, connectEtcd, ttlSeconds } from "./etcd3-lock.mjs";

/** @type {import("lockcheck").LibraryLock} */
export default {
  ...unfenced,
  name: "etcd3-lock-fenced",
  fencing: true,
  connect({ endpoints }) {
    const client = connectEtcd(endpoints);
    return {
      async acquire(lock, ttlMs) {
        const held = client.lock(lock).ttl(ttlSeconds(ttlMs));
        if (!(await acquireWithin(held, ttlMs))) return null;
        const [lease, got] = await Promise.all([held.leaseId(), client.get(lock).exec()]);
        const kv = got.kvs[0];
        if (kv === undefined || String(kv.lease) !== String(lease)) {
          await held.release().catch(() => {});
          return null; // our lease expired before we could read our key: we do not hold it
        }
        return { held, token: kv.create_revision }; // int64 as a decimal string
      },
      async release({ held }) {
        await held.release();
        return true;
      },
      async close() {
        client.close();
      },
    };
  },
};
