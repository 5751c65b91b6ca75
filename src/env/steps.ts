/**
 * Lock code written as generators ("steps") instead of async functions: the built-in lock
 * algorithms and the workload are written this way, so that the simulator can run them
 * without promises.
 *
 * An async function hands control back through the microtask queue at every `await`, and the
 * simulator must then leave its event loop and come back once the queue is empty
 * (sim/scheduler.ts): per await, a promise, a microtask and the allocations of both, which was
 * most of a simulated run's time. A generator instead waits with `yield* env.x(...)`: the
 * simulator resumes it directly, inside its loop, when the answer arrives; against real
 * servers `driveAsync` awaits the same waits as promises. The code is one and the same in
 * both worlds, as LockEnv requires.
 *
 * Users' own algorithms stay async functions against LockEnv (`stepLockOf` runs them in a
 * step workload).
 */
import type { EtcdApi, LockEnv, RedisApi, RedisFanOut, ResourceApi, ZkApi } from "./env.js";

/**
 * Something client code waits for: `const x = yield* w`. In the simulator a SimOp; against
 * real servers a promise, wrapped by `awaiting`.
 */
export interface Waitable<T> {
  [Symbol.iterator](): Iterator<unknown, T, unknown>;
}

/** A piece of client code as a generator that returns T; run it with a driver. */
export type Steps<T> = Generator<unknown, T, unknown>;

/** `LockEnv` with every promise a `Waitable` instead. */
export type StepEnv = StepApi<LockEnv>;

type Stepped<F> = F extends (...args: infer A) => Promise<infer R>
  ? (...args: A) => Waitable<R>
  : F extends (...args: never[]) => unknown
    ? F
    : F extends object
      ? StepApi<F>
      : F;

export type StepApi<T> = { readonly [K in keyof T]: Stepped<T[K]> };

/**
 * Waits for a promise in step code: the driver gets the promise, awaits it (or, in the
 * simulator, lets the microtask queue settle it) and resumes with its value, or throws its
 * rejection in.
 */
export function* awaiting<T>(p: PromiseLike<T>): Steps<T> {
  return (yield p) as T;
}

/** Runs step code whose waits are promises (real servers, plain worlds) as an async function. */
export async function driveAsync<T>(steps: Steps<T>): Promise<T> {
  let r = steps.next();
  while (r.done !== true) {
    let value: unknown;
    try {
      value = await r.value;
    } catch (e) {
      r = steps.throw(e);
      continue;
    }
    r = steps.next(value);
  }
  return r.value;
}

const stepEnvs = new WeakMap<LockEnv, StepEnv>();

/** The StepEnv over an async LockEnv: every promise its methods return is waited by `awaiting`. */
export function stepEnvOf(env: LockEnv): StepEnv {
  let s = stepEnvs.get(env);
  if (s === undefined) {
    s = buildStepEnv(env);
    stepEnvs.set(env, s);
  }
  return s;
}

function buildStepEnv(env: LockEnv): StepEnv {
  return {
    clientId: env.clientId,
    now: () => env.now(),
    sleep: (ms) => awaiting(env.sleep(ms)),
    redis: env.redis.map(stepRedis),
    redisAll: stepFanOut(env.redisAll),
    etcd: env.etcd === null ? null : stepEtcd(env.etcd),
    zk: env.zk === null ? null : stepZk(env.zk),
    resource: stepResource(env.resource),
    checkpoint: (point) => awaiting(env.checkpoint(point)),
  };
}

function stepRedis(r: RedisApi): StepApi<RedisApi> {
  return {
    node: r.node,
    setNxPx: (key, value, ttlMs, opts) => awaiting(r.setNxPx(key, value, ttlMs, opts)),
    delIfEquals: (key, value, opts) => awaiting(r.delIfEquals(key, value, opts)),
    incr: (key, opts) => awaiting(r.incr(key, opts)),
    setNxPxIncr: (key, value, ttlMs, counterKey, opts) =>
      awaiting(r.setNxPxIncr(key, value, ttlMs, counterKey, opts)),
  };
}

function stepFanOut(f: RedisFanOut): StepApi<RedisFanOut> {
  return {
    setNxPx: (key, value, ttlMs, opts) => awaiting(f.setNxPx(key, value, ttlMs, opts)),
    delIfEquals: (key, value, opts) => awaiting(f.delIfEquals(key, value, opts)),
  };
}

function stepEtcd(e: EtcdApi): StepApi<EtcdApi> {
  return {
    leaseGrant: (ttlMs, opts) => awaiting(e.leaseGrant(ttlMs, opts)),
    leaseKeepAlive: (leaseId, opts) => awaiting(e.leaseKeepAlive(leaseId, opts)),
    leaseRevoke: (leaseId, opts) => awaiting(e.leaseRevoke(leaseId, opts)),
    keepAlive: (leaseId, intervalMs) => e.keepAlive(leaseId, intervalMs),
    createIfAbsent: (key, value, leaseId, opts) => awaiting(e.createIfAbsent(key, value, leaseId, opts)),
    get: (key, opts) => awaiting(e.get(key, opts)),
    deleteIfCreateRevision: (key, rev, opts) => awaiting(e.deleteIfCreateRevision(key, rev, opts)),
    waitForDeletion: (key, rev, waitMs) => awaiting(e.waitForDeletion(key, rev, waitMs)),
  };
}

function stepZk(z: ZkApi): StepApi<ZkApi> {
  return {
    createSession: (timeoutMs, opts) => awaiting(z.createSession(timeoutMs, opts)),
    heartbeat: (sessionId, opts) => awaiting(z.heartbeat(sessionId, opts)),
    closeSession: (sessionId, opts) => awaiting(z.closeSession(sessionId, opts)),
    keepSessionAlive: (sessionId, intervalMs) => z.keepSessionAlive(sessionId, intervalMs),
    createEphemeralSequential: (sessionId, prefix, opts) =>
      awaiting(z.createEphemeralSequential(sessionId, prefix, opts)),
    children: (prefix, opts) => awaiting(z.children(prefix, opts)),
    delete: (path, opts) => awaiting(z.delete(path, opts)),
    waitForDeletion: (path, waitMs) => awaiting(z.waitForDeletion(path, waitMs)),
  };
}

function stepResource(r: ResourceApi): StepApi<ResourceApi> {
  return { write: (w, opts) => awaiting(r.write(w, opts)) };
}

/** Turns a world's waitable into a promise (its own kind of wait, settled as a promise). */
export type PromiseOf = <T>(w: Waitable<T>) => Promise<T>;

/**
 * The async LockEnv over a StepEnv: what a user's async algorithm is called with in a world
 * whose own waits are not promises (the simulator's SimOps).
 */
export function asyncEnvOf(env: StepEnv, promiseOf: PromiseOf): LockEnv {
  return {
    clientId: env.clientId,
    now: () => env.now(),
    sleep: (ms) => promiseOf(env.sleep(ms)),
    redis: env.redis.map((r) => asyncRedis(r, promiseOf)),
    redisAll: {
      setNxPx: (key, value, ttlMs, opts) => promiseOf(env.redisAll.setNxPx(key, value, ttlMs, opts)),
      delIfEquals: (key, value, opts) => promiseOf(env.redisAll.delIfEquals(key, value, opts)),
    },
    etcd: env.etcd === null ? null : asyncEtcd(env.etcd, promiseOf),
    zk: env.zk === null ? null : asyncZk(env.zk, promiseOf),
    resource: { write: (w, opts) => promiseOf(env.resource.write(w, opts)) },
    checkpoint: (point) => promiseOf(env.checkpoint(point)),
  };
}

function asyncRedis(r: StepApi<RedisApi>, p: PromiseOf): RedisApi {
  return {
    node: r.node,
    setNxPx: (key, value, ttlMs, opts) => p(r.setNxPx(key, value, ttlMs, opts)),
    delIfEquals: (key, value, opts) => p(r.delIfEquals(key, value, opts)),
    incr: (key, opts) => p(r.incr(key, opts)),
    setNxPxIncr: (key, value, ttlMs, counterKey, opts) =>
      p(r.setNxPxIncr(key, value, ttlMs, counterKey, opts)),
  };
}

function asyncEtcd(e: StepApi<EtcdApi>, p: PromiseOf): EtcdApi {
  return {
    leaseGrant: (ttlMs, opts) => p(e.leaseGrant(ttlMs, opts)),
    leaseKeepAlive: (leaseId, opts) => p(e.leaseKeepAlive(leaseId, opts)),
    leaseRevoke: (leaseId, opts) => p(e.leaseRevoke(leaseId, opts)),
    keepAlive: (leaseId, intervalMs) => e.keepAlive(leaseId, intervalMs),
    createIfAbsent: (key, value, leaseId, opts) => p(e.createIfAbsent(key, value, leaseId, opts)),
    get: (key, opts) => p(e.get(key, opts)),
    deleteIfCreateRevision: (key, rev, opts) => p(e.deleteIfCreateRevision(key, rev, opts)),
    waitForDeletion: (key, rev, waitMs) => p(e.waitForDeletion(key, rev, waitMs)),
  };
}

function asyncZk(z: StepApi<ZkApi>, p: PromiseOf): ZkApi {
  return {
    createSession: (timeoutMs, opts) => p(z.createSession(timeoutMs, opts)),
    heartbeat: (sessionId, opts) => p(z.heartbeat(sessionId, opts)),
    closeSession: (sessionId, opts) => p(z.closeSession(sessionId, opts)),
    keepSessionAlive: (sessionId, intervalMs) => z.keepSessionAlive(sessionId, intervalMs),
    createEphemeralSequential: (sessionId, prefix, opts) =>
      p(z.createEphemeralSequential(sessionId, prefix, opts)),
    children: (prefix, opts) => p(z.children(prefix, opts)),
    delete: (path, opts) => p(z.delete(path, opts)),
    waitForDeletion: (path, waitMs) => p(z.waitForDeletion(path, waitMs)),
  };
}
