/**
 * A minimal in-memory LockEnv for unit tests of the Redis-based algorithms: N Redis-like
 * nodes with key expiry on one shared manual clock, replies without latency, nodes that can
 * be made unreachable, and a hook at every checkpoint (to simulate a pause by moving the
 * clock). Not a simulator: no network, no concurrency beyond promise order.
 */
import type { CallResult, LockEnv, RedisApi } from "../../src/env/env.js";
import { fanOut } from "../../src/env/fan-out.js";
import type { Checkpoint } from "../../src/schedule/schedule.js";

export interface FakeClock {
  now: number;
}

export interface FakeRedisNode extends RedisApi {
  /** Current value of a key (undefined if absent or expired). */
  peek(key: string): string | undefined;
  unreachable: boolean;
}

function fakeNode(index: number, clock: FakeClock): FakeRedisNode {
  const keys = new Map<string, { value: string; expiresAt: number }>();
  const counters = new Map<string, bigint>();
  const live = (key: string) => {
    const e = keys.get(key);
    if (e !== undefined && e.expiresAt <= clock.now) keys.delete(key);
    return keys.get(key);
  };
  const node: FakeRedisNode = {
    node: `server:${index}`,
    unreachable: false,
    peek: (key) => live(key)?.value,
    async setNxPx(key, value, ttlMs): Promise<CallResult<boolean>> {
      if (node.unreachable) return { ok: false, error: { kind: "unreachable", node: node.node } };
      if (live(key) !== undefined) return { ok: true, value: false };
      keys.set(key, { value, expiresAt: clock.now + ttlMs });
      return { ok: true, value: true };
    },
    async delIfEquals(key, value): Promise<CallResult<boolean>> {
      if (node.unreachable) return { ok: false, error: { kind: "unreachable", node: node.node } };
      if (live(key)?.value !== value) return { ok: true, value: false };
      keys.delete(key);
      return { ok: true, value: true };
    },
    async incr(key): Promise<CallResult<bigint>> {
      if (node.unreachable) return { ok: false, error: { kind: "unreachable", node: node.node } };
      const next = (counters.get(key) ?? 0n) + 1n;
      counters.set(key, next);
      return { ok: true, value: next };
    },
    async setNxPxIncr(key, value, ttlMs, counterKey): Promise<CallResult<bigint | null>> {
      const set = await node.setNxPx(key, value, ttlMs);
      if (!set.ok) return set;
      return set.value ? node.incr(counterKey) : { ok: true, value: null };
    },
  };
  return node;
}

export interface FakeRedisEnv extends LockEnv {
  readonly nodes: FakeRedisNode[];
  readonly checkpoints: Checkpoint[];
}

export function fakeRedisEnv(
  servers: number,
  clock: FakeClock,
  onCheckpoint: (p: Checkpoint) => void = () => {},
  nodes: FakeRedisNode[] = Array.from({ length: servers }, (_, i) => fakeNode(i, clock)),
): FakeRedisEnv {
  const checkpoints: Checkpoint[] = [];
  return {
    clientId: 0,
    nodes,
    checkpoints,
    now: () => clock.now,
    async sleep(ms) {
      clock.now += ms;
    },
    redis: nodes,
    redisAll: fanOut(nodes),
    etcd: null,
    zk: null,
    resource: { write: async () => ({ ok: true, value: { accepted: true } }) },
    async checkpoint(p) {
      checkpoints.push(p);
      onCheckpoint(p);
    },
  };
}
