/**
 * What checkers need to know about each grant (one acquisition of a lock), learned from the
 * acquire `ok` that handed it out.
 *
 * Grant rank ("which of two grants is newer"), per lock name: by fencing token (as BigInt)
 * when both grants have one, otherwise by acquisition order (the history index of their
 * acquire `ok`). A grant that a write names but no acquire `ok` handed out (an imported
 * history, an acquire that ended `info`) is registered when first seen, with that op's index
 * as its acquisition order and the token the write presented.
 */
import type { ClientId, GrantId } from "./op.js";
import { ProcessMap } from "./process-map.js";

/** What the grant table reads from an op: an AcquireOp, a WriteOp, or their OpFacts. */
export interface GrantSource {
  lock: string;
  process: ClientId;
  index: number;
  time: number;
  token: bigint | undefined;
}

export interface GrantInfo {
  lock: string;
  grant: GrantId;
  /** Client that holds it. */
  process: ClientId;
  /** Index of the acquire `ok` that handed it out, or of the first op naming it if none did. */
  order: number;
  /** Time of that op (ns). */
  time: number;
  token: bigint | undefined;
  /** False when no acquire `ok` in the history handed this grant out. */
  acquired: boolean;
}

/** Grants by (lock, grant id), filled as a history streams by. */
export class GrantTable {
  /** lock → grant id → info (two levels: no key strings to build per op). */
  private readonly byLock = new Map<string, Map<GrantId, GrantInfo>>();

  // Most histories have one lock: remember the last one looked up.
  private lastLock = "";
  private lastGrants: Map<GrantId, GrantInfo> | undefined;
  /** The grant each process's last write named (a holder's writes repeat it). */
  private readonly lastByProcess = new ProcessMap<GrantInfo>();

  private grantsOf(lock: string): Map<GrantId, GrantInfo> {
    if (lock === this.lastLock && this.lastGrants !== undefined) return this.lastGrants;
    let m = this.byLock.get(lock);
    if (!m) {
      m = new Map();
      this.byLock.set(lock, m);
    }
    this.lastLock = lock;
    this.lastGrants = m;
    return m;
  }

  /** Records the grant an acquire `ok` handed out (the first `ok` for a grant id wins). */
  acquired(op: GrantSource, grant: GrantId): GrantInfo {
    const grants = this.grantsOf(op.lock);
    const known = grants.get(grant);
    if (known?.acquired) return known;
    // A write registered this grant before: its info is replaced, so forget cached lookups.
    if (known) this.lastByProcess.clear();
    const info: GrantInfo = {
      lock: op.lock,
      grant,
      process: op.process,
      order: op.index,
      time: op.time,
      token: op.token,
      acquired: true,
    };
    grants.set(grant, info);
    return info;
  }

  /** The grant a write names, registering it from the write if no acquire `ok` handed it out. */
  forWrite(op: GrantSource, grant: GrantId): GrantInfo {
    const cached = this.lastByProcess.get(op.process);
    if (cached !== undefined && cached.grant === grant && cached.lock === op.lock) return cached;
    const grants = this.grantsOf(op.lock);
    let known = grants.get(grant);
    if (known === undefined) {
      known = this.registerFromWrite(op, grant, grants);
    }
    this.lastByProcess.set(op.process, known);
    return known;
  }

  private registerFromWrite(op: GrantSource, grant: GrantId, grants: Map<GrantId, GrantInfo>): GrantInfo {
    const info: GrantInfo = {
      lock: op.lock,
      grant,
      process: op.process,
      order: op.index,
      time: op.time,
      token: op.token,
      acquired: false,
    };
    grants.set(grant, info);
    return info;
  }
}
