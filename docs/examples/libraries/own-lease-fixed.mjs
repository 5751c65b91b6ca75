// own-lease.mjs with the lease counted from before the request was sent, on the monotonic
// clock, less an allowance for clock drift: the server's lease began after that moment, so the
// client's own lease now ends first, however late the reply came.
import { LeaseLock, ownLeaseAdapter } from "./own-lease.mjs";

const driftMs = (ttlMs) => Math.round(0.01 * ttlMs) + 2;

class FixedLeaseLock extends LeaseLock {
  async tryAcquire() {
    const sent = performance.now();
    const ok = await this.redis.set(this.key, this.owner, "PX", this.ttlMs, "NX");
    if (ok !== "OK") return false;
    this.endsAt = sent + this.ttlMs - driftMs(this.ttlMs);
    return true;
  }
  isHeld() {
    return performance.now() < this.endsAt;
  }
}

export default ownLeaseAdapter("own-lease-fixed", FixedLeaseLock);
