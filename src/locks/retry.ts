/**
 * Deterministic retry jitter for lock algorithms. Real clients draw a random delay so that
 * contending clients do not retry in lockstep; lock algorithms have no random source of their
 * own (everything random in a run comes from the schedule's seed, inside the world), so the
 * jitter is a hash of the owner string and the attempt number: different clients spread
 * out, and the same schedule still replays identically.
 */

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a 32-bit: folds `text` into the running hash `h` (unsigned only at the end). */
function fnv1aInto(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** `fnv1aInto(h, String(n))` for a non-negative integer `n`, without making the string. */
function fnv1aDigitsInto(h: number, n: number): number {
  if (n >= 10) h = fnv1aDigitsInto(h, Math.floor(n / 10));
  h ^= 48 + (n % 10);
  return Math.imul(h, 0x01000193);
}

/**
 * The FNV-1a hash of `${owner}#${attempt}`. Folded piece by piece: building the string cost
 * more than hashing it, once per retry of every client.
 */
function jitterHash(owner: string, attempt: number): number {
  const h = fnv1aInto(fnv1aInto(FNV_OFFSET, owner), "#");
  return (
    (Number.isSafeInteger(attempt) && attempt >= 0
      ? fnv1aDigitsInto(h, attempt)
      : fnv1aInto(h, `${attempt}`)) >>> 0
  );
}

/** A delay in [baseMs, baseMs + jitterMs], fixed for (owner, attempt). */
export function retryDelayMs(owner: string, attempt: number, baseMs: number, jitterMs: number): number {
  const span = Math.max(0, Math.floor(jitterMs));
  const extra = span === 0 ? 0 : jitterHash(owner, attempt) % (span + 1);
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
