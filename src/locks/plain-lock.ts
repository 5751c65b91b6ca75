/**
 * The "plain real" adapter: for a lock you cannot (or do not want to) rewrite against
 * LockEnv — a client library of your own lock service, say. You give lockcheck a way to make
 * one client, and each client a way to acquire, release and (optionally) write to the
 * protected resource; lockcheck drives many clients concurrently in real time and checks the
 * history, exactly as for its own locks.
 *
 * What lockcheck can do to such a lock is limited to what it controls: the clients. Client
 * pauses (`pause`, `pause-at`), client clock jumps and drift (through `now`), and client
 * crashes are applied; faults aimed at servers, links or the resource are not (lockcheck does
 * not know your servers) and are counted in the run's stats as `ignoredFaults`. A pause here
 * stops the client's calls at their next step — it cannot freeze background work inside your
 * library (a lease keep-alive timer goes on), unlike the SIGSTOP a real target uses.
 */

/** A grant as your library returns it; `token` is the fencing token, if your lock has one. */
export interface PlainGrant {
  token?: bigint | number | string | null;
  [key: string]: unknown;
}

/** Clock a client should use for any time arithmetic of its own (it carries the client's clock faults). */
export interface PlainClientContext {
  clientId: number;
  /** The client's wall clock in ms. */
  now(): number;
}

/** One client of your lock. */
export interface PlainLockClient {
  /**
   * Try to take `lock` for `ttlMs`, once (retry inside if your lock does). Resolve with the
   * grant when the caller holds the lock, with null when someone else does; throw (or
   * reject) when the outcome is unknown (a timeout: it may have been taken).
   */
  acquire(lock: string, ttlMs: number, owner: string): Promise<PlainGrant | null>;
  /** Release a grant: true if it was released, false if the caller no longer held it; throw if unknown. */
  release(grant: PlainGrant): Promise<boolean>;
  /**
   * Write `value` to your protected resource under `grant`; resolve whether the resource
   * accepted it; throw if unknown. Without it, lockcheck's in-memory resource is used
   * (fenced or unfenced, as the schedule says).
   */
  write?(grant: PlainGrant, value: string): Promise<boolean>;
  /** Called once when the run ends. */
  close?(): Promise<void>;
}

export interface PlainLock {
  /** Lowercase letters, digits and dashes: the target is `plain:<name>`. */
  name: string;
  /** Whether grants carry a fencing token. */
  fencing: boolean;
  /** Make one client (a connection of your library). */
  connect(ctx: PlainClientContext): PlainLockClient | Promise<PlainLockClient>;
  /** Lease time and other world options, if the defaults (ttl 1 s, horizon 3 s) do not suit. */
  options?: { ttlMs?: number; horizonMs?: number; callTimeoutMs?: number };
}

/** Identity function that gives a plain lock module its types. */
export function definePlainLock(lock: PlainLock): PlainLock {
  return lock;
}

export function isPlainLock(x: unknown): x is PlainLock {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return typeof o.name === "string" && typeof o.connect === "function" && typeof o.fencing === "boolean";
}

/**
 * Why the value `connect()` returned is not a client — a method missing or not a function —
 * or null when it is one. Checked once per client so that a broken adapter is an error, not a
 * run whose every call "threw" and whose history is then trivially valid.
 */
export function plainClientProblem(client: unknown): string | null {
  if (typeof client !== "object" || client === null)
    return `connect() returned ${client === null ? "null" : typeof client}; expected a client { acquire, release, write?, close? }`;
  const o = client as Record<string, unknown>;
  for (const [method, required] of [
    ["acquire", true],
    ["release", true],
    ["write", false],
    ["close", false],
  ] as const) {
    const v = o[method];
    if (v === undefined && !required) continue;
    if (typeof v !== "function")
      return `connect() returned a client whose ${method} is ${v === undefined ? "missing" : `a ${typeof v}`}; expected a function ${method}(…)${required ? "" : " or none"}`;
  }
  return null;
}

/** BigInt token from what a library returned; undefined when there is none. */
export function tokenOf(grant: PlainGrant): bigint | undefined {
  const t = grant.token;
  if (t === undefined || t === null) return undefined;
  if (typeof t === "bigint") return t;
  if (typeof t === "number" && Number.isInteger(t)) return BigInt(t);
  if (typeof t === "string" && /^-?\d+$/.test(t)) return BigInt(t);
  throw new TypeError(
    `plain lock: grant.token must be an integer (bigint, number or decimal string), got ${String(t)}`,
  );
}
