// The "plain" adapter: your own lock client, driven as it is. Here the "service" is an
// in-memory lease table standing in for your server; in real use, `connect` opens a client
// of your library and `acquire`/`release` call it.
const leases = new Map(); // lock name → { owner, token, until }
let lastToken = 0;

export default {
  name: "memory-lease",
  fencing: true, // grants carry a fencing token
  options: { ttlMs: 100, horizonMs: 600, callTimeoutMs: 50 },
  connect() {
    return {
      async acquire(lock, ttlMs, owner) {
        const held = leases.get(lock);
        if (held && held.until > Date.now()) return null; // someone else holds it
        const grant = { lock, owner, token: ++lastToken };
        leases.set(lock, { ...grant, until: Date.now() + ttlMs });
        return grant;
      },
      async release({ lock, owner }) {
        if (leases.get(lock)?.owner !== owner) return false; // expired and taken over
        leases.delete(lock);
        return true;
      },
      // No `write`: lockcheck's own resource is used, fenced or unfenced as the schedule says.
    };
  },
};
