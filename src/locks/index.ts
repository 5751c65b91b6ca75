/** Every lock algorithm lockcheck ships, by name. */
import { consensus } from "./consensus.js";
import { lease } from "./lease.js";
import { leaseToken } from "./lease-token.js";
import type { LockAlgorithm } from "./lock.js";
import { redlock } from "./redlock.js";
import { redlockNocheck } from "./redlock-nocheck.js";
import { zk } from "./zk.js";

export const LOCK_ALGORITHMS: readonly LockAlgorithm[] = [
  lease,
  leaseToken,
  redlock,
  redlockNocheck,
  consensus,
  zk,
];

export { consensus, lease, leaseToken, redlock, redlockNocheck, zk };
