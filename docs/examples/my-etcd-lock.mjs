// A lease lock on etcd: grant a lease and keep it alive while the lock is held, create the
// lock key under the lease only if it is absent, and wait on a watch while someone else holds
// it. The fencing token is the key's create revision: etcd's revision only grows, so a later
// grant always has a higher one. A fenced resource rejects a paused holder's late write; an
// unfenced one (`--resource unfenced`) accepts it, and lockcheck finds that.
export default {
  name: "my-etcd-lease",
  servers: "etcd",
  fencing: true,
  renews: true, // the keep-alive renews the lease while the lock is held
  async acquire(env, { lock, owner, ttlMs }) {
    const key = `/my-locks/${lock}`;
    const lease = await env.etcd.leaseGrant(ttlMs);
    if (!lease.ok) return { outcome: "denied", reason: `lease grant: ${lease.error.kind}` };
    const { leaseId } = lease.value;
    const keepAlive = env.etcd.keepAlive(leaseId, Math.max(1, Math.floor(lease.value.ttlMs / 3)));
    const giveUp = async (reason) => {
      keepAlive.stop();
      // Revoking the lease deletes the key if a create we never heard back from made it.
      const revoked = await env.etcd.leaseRevoke(leaseId);
      return { outcome: revoked.ok ? "denied" : "unknown", reason };
    };
    for (const deadline = env.now() + 2 * ttlMs; env.now() < deadline; ) {
      const r = await env.etcd.createIfAbsent(key, owner, leaseId);
      if (!r.ok) return giveUp(r.error.kind);
      const rev = r.value.createRevision;
      if (r.value.created)
        return {
          outcome: "granted",
          token: rev,
          handle: { request: { lock, owner, ttlMs }, state: { key, leaseId, rev, keepAlive } },
        };
      await env.etcd.waitForDeletion(key, rev, ttlMs);
    }
    return giveUp("held by another client");
  },
  async release(env, { state }) {
    state.keepAlive.stop();
    const deleted = await env.etcd.deleteIfCreateRevision(state.key, state.rev);
    await env.etcd.leaseRevoke(state.leaseId);
    if (!deleted.ok) return { outcome: "unknown", reason: deleted.error.kind };
    return deleted.value ? { outcome: "released" } : { outcome: "not-held" };
  },
};
