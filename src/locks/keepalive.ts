/**
 * A renewal loop for client libraries that have none of their own (the real etcd adapter):
 * renew every `intervalMs`, each time after the previous renewal was answered, until stopped
 * or until `renew` resolves to false (the lease or session is gone; renewing it further is
 * pointless). Lock algorithms start renewals through their cluster's API (`keepAlive`,
 * `keepSessionAlive`), as real recipes leave keep-alives to the client library.
 */
import type { Renewal } from "../env/env.js";

export function startRenewal(
  sleep: (ms: number) => Promise<void>,
  intervalMs: number,
  renew: () => Promise<boolean>,
): Renewal {
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      await sleep(intervalMs);
      if (stopped) return;
      if (!(await renew())) return;
    }
  };
  void loop();
  return {
    stop() {
      stopped = true;
    },
  };
}
