/**
 * A Redis-like lock server: the commands Redis lock recipes use, nothing more.
 *
 * - Keys expire by the node's wall clock, checked when a key is touched (as Redis does on
 *   access): a forward clock jump expires keys early, a backward jump keeps them longer —
 *   the failure Redlock's critics describe.
 * - No persistence: a crash forgets every key; the node restarts empty.
 */
import { wallAt } from "../clock.js";
import type { SimNode } from "../node.js";

/**
 * A key's slot. A deleted or expired key keeps its slot, marked absent, and a later SET of
 * the key reuses it: lock keys are set and deleted over and over, and deleting from a Map
 * this small makes it rebuild its table every few cycles.
 */
interface Entry {
  present: boolean;
  value: string | bigint;
  /** Wall-clock ms after which the key is gone; null: no expiry. */
  expireAt: number | null;
}

export interface RedisNode {
  readonly node: SimNode;
  readonly keys: Map<string, Entry>;
  /**
   * The slot last looked up, and its key: a lock server is asked about one key over and over
   * (lock keys are one string object per lock, src/locks/lease.ts), and comparing it by
   * identity costs less than a Map lookup. Slots stay in `keys` until a crash empties it.
   */
  lastKey: string | null;
  lastSlot: Entry | null;
}

export function createRedisNode(node: SimNode): RedisNode {
  const r: RedisNode = { node, keys: new Map(), lastKey: null, lastSlot: null };
  node.onCrash = () => {
    r.keys.clear();
    r.lastKey = null;
    r.lastSlot = null;
  };
  return r;
}

/** The key's slot, if it has one. */
function slotOf(r: RedisNode, key: string): Entry | undefined {
  if (r.lastKey === key) return r.lastSlot!;
  const e = r.keys.get(key);
  if (e !== undefined) {
    r.lastKey = key;
    r.lastSlot = e;
  }
  return e;
}

function live(r: RedisNode, key: string): Entry | undefined {
  const e = slotOf(r, key);
  return e !== undefined && isLive(r, e) ? e : undefined;
}

/** Whether the slot holds its key now (an expired one is marked absent on the way). */
function isLive(r: RedisNode, e: Entry): boolean {
  if (!e.present) return false;
  if (e.expireAt !== null && wallAt(r.node.clock, r.node.core.now) > e.expireAt) {
    e.present = false;
    return false;
  }
  return true;
}

/** Sets `key` (absent or not), reusing its slot `e` (the key's, if it has one). */
function store(
  r: RedisNode,
  e: Entry | undefined,
  key: string,
  value: string | bigint,
  expireAt: number | null,
): void {
  if (e === undefined) r.keys.set(key, { present: true, value, expireAt });
  else {
    e.present = true;
    e.value = value;
    e.expireAt = expireAt;
  }
}

/** SET key value NX PX ttlMs */
export function setNxPx(r: RedisNode, key: string, value: string, ttlMs: number): boolean {
  const e = slotOf(r, key);
  if (e !== undefined && isLive(r, e)) return false;
  store(r, e, key, value, wallAt(r.node.clock, r.node.core.now) + ttlMs);
  return true;
}

/** The compare-and-delete script: DEL key if GET key == value. */
export function delIfEquals(r: RedisNode, key: string, value: string): boolean {
  const e = live(r, key);
  if (e === undefined || e.value !== value) return false;
  e.present = false;
  return true;
}

/** INCR key; a missing key counts as 0. Null if the key holds a non-integer (Redis errors). */
export function incr(r: RedisNode, key: string): bigint | null {
  const slot = slotOf(r, key);
  const e = slot !== undefined && isLive(r, slot) ? slot : undefined;
  let current = 0n;
  if (e !== undefined) {
    if (typeof e.value === "bigint") current = e.value;
    else if (/^-?\d+$/.test(e.value)) current = BigInt(e.value);
    else return null;
  }
  const next = current + 1n;
  store(r, slot, key, next, e?.expireAt ?? null);
  return next;
}
