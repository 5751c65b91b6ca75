// A lease lock on one Redis-like node: SET NX PX to take it (retrying for two leases' time),
// compare-and-delete to release it. No fencing token, so a holder paused past its lease can
// still write after the next holder did: lockcheck finds that.
export default {
  name: "my-lease",
  servers: "redis", // it talks to env.redis[0 … n-1]
  fencing: false, // its grants carry no token
  async acquire(env, { lock, owner, ttlMs }) {
    for (const deadline = env.now() + 2 * ttlMs; env.now() < deadline; await env.sleep(ttlMs / 10)) {
      const r = await env.redis[0].setNxPx(lock, owner, ttlMs);
      if (!r.ok) return { outcome: r.error.kind === "timeout" ? "unknown" : "denied", reason: r.error.kind };
      if (r.value)
        return { outcome: "granted", token: null, handle: { request: { lock, owner, ttlMs }, state: null } };
    }
    return { outcome: "denied", reason: "held by another client" };
  },
  async release(env, { request }) {
    const r = await env.redis[0].delIfEquals(request.lock, request.owner);
    if (!r.ok) return { outcome: "unknown", reason: r.error.kind };
    return r.value ? { outcome: "released" } : { outcome: "not-held" };
  },
};
