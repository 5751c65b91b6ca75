/**
 * Deterministic retry jitter for lock algorithms. Real clients draw a random delay so that
 * contending clients do not retry in lockstep; lock algorithms have no random source of their
 * own (everything random in a run comes from the schedule's seed, inside the world), so the
 * jitter is a hash of the owner string and the attempt number: different clients spread
 * out, and the same schedule still replays identically.
 */

/** FNV-1a 32-bit hash of a string. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A delay in [baseMs, baseMs + jitterMs], fixed for (owner, attempt). */
export function retryDelayMs(owner: string, attempt: number, baseMs: number, jitterMs: number): number {
  const span = Math.max(0, Math.floor(jitterMs));
  const extra = span === 0 ? 0 : fnv1a(`${owner}#${attempt}`) % (span + 1);
  return Math.max(1, Math.floor(baseMs) + extra);
}

/**
 * How long an acquire keeps waiting for a lock someone else holds: two TTLs. A holder that
 * died (or is paused) loses its lease at most one TTL after its last renewal, so a waiter
 * that started after that renewal sees the lock free within this bound, polls included.
 */
export function acquireWaitMs(ttlMs: number): number {
  return 2 * ttlMs;
}
