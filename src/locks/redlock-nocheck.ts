/**
 * `redlock-nocheck`: Redlock without the validity check after acquiring. A majority of
 * "OK" replies is taken as the lock however long the client took to read them — so a client
 * paused while its replies are in flight wakes up, counts stale yeses, and believes it holds
 * a lock whose keys have already expired (and perhaps been taken by someone else). Some
 * popular client libraries behave this way; `redlock` under the same schedule does not.
 */

import type { LockAlgorithm } from "./lock.js";
import { makeRedlock, NODE_REDLOCK_RETRY } from "./redlock.js";

export const redlockNocheck: LockAlgorithm = makeRedlock({
  name: "redlock-nocheck",
  checkValidity: false,
  retry: NODE_REDLOCK_RETRY,
});
