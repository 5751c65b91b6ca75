/**
 * A client process that drives a library adapter (src/locks/library-lock.ts) instead of one
 * of lockcheck's lock algorithms: it imports the adapter's module, calls `connect` once with
 * this client's endpoints, and runs the same workload as every other client
 * (src/workload/client.ts) through the library's own acquire / release / write.
 *
 * The library runs inside this process, so a pause (SIGSTOP) freezes its timers too, and the
 * client's clock is the process's (child-main.ts installs it), so clock faults reach the
 * library's Date.now() and timers. Calls
 * get lockcheck's deadline (callWithDeadline, which still counts replies that arrived during
 * a pause): an acquire that has not answered within max(callTimeoutMs, 2 × TTL) is recorded
 * as `info`, and if it is granted later the grant is given back at once, so that an
 * abandoned grant does not jam the lock for the others.
 */
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";
import type { CallResult, LockEnv, ResourceApi } from "../../env/env.js";
import { fanOut } from "../../env/fan-out.js";
import { isLibraryLock, type LibraryLock } from "../../locks/library-lock.js";
import type { LockAlgorithm, LockHandle } from "../../locks/lock.js";
import {
  type PlainGrant,
  type PlainLockClient,
  plainClientProblem,
  tokenOf,
} from "../../locks/plain-lock.js";
import { runClient } from "../../workload/client.js";
import { callWithDeadline, errorText } from "../adapters/call.js";
import { connectRedis } from "../adapters/redis.js";
import { RESOURCE_NODE, redisResourceApi } from "../adapters/resource.js";
import type { Send } from "./checkpoint.js";
import { createCheckpoint } from "./checkpoint.js";
import type { ClientClock } from "./clock.js";
import type { LinkRequests } from "./link-requests.js";
import { selfStoppingPausesInCall } from "./pause-in-call.js";
import type { ChildConfig, LibraryChildConfig } from "./protocol.js";
import { createFileRecorder } from "./recorder.js";

export interface ChildIo {
  clock: ClientClock;
  /** Resolves with the run's t0 when the parent fires the start gun. */
  started: Promise<bigint>;
  send: Send;
  /** The parent's answers to the changes of its links at checkpoints (link-requests.ts). */
  links: LinkRequests;
}

/** How long `close()` of the library's client may take before the process just exits. */
const CLOSE_GRACE_MS = 2000;

async function importLibrary(moduleUrl: string, expectedName: string): Promise<LibraryLock> {
  const { defaultExport, importModule, namedExports } = await import("../../util/import-module.js");
  const { formatInputError } = await import("../../result.js");
  const mod = await importModule(fileURLToPath(moduleUrl));
  if (!mod.ok) throw new Error(formatInputError(mod.error));
  const exported = defaultExport(mod.value) ?? namedExports(mod.value).lock;
  if (!isLibraryLock(exported)) throw new Error(`${moduleUrl}: exports no library adapter`);
  if (exported.name !== expectedName)
    throw new Error(`${moduleUrl}: exports library "${exported.name}", expected "${expectedName}"`);
  return exported;
}

/** A library call that threw: its outcome is unknown (it may have taken effect). */
const threw = (e: unknown) => ({ kind: "timeout" as const, node: "library", detail: errorText(e) });

/** The library's client as a LockAlgorithm, so the shared workload driver can run it. */
export function libraryAlgorithm(
  lock: LibraryLock,
  client: PlainLockClient,
  callTimeoutMs: number,
): LockAlgorithm {
  return {
    name: lock.name,
    servers: lock.servers,
    fencing: lock.fencing,
    async acquire(_env, req) {
      const call = Promise.resolve().then(() => client.acquire(req.lock, req.ttlMs, req.owner));
      const r: CallResult<PlainGrant | null> = await callWithDeadline(
        "library",
        Math.max(callTimeoutMs, 2 * req.ttlMs),
        () => call,
        threw,
      );
      if (!r.ok) {
        if (r.error.detail === undefined) {
          // Our deadline passed: if it is granted after all, give it back.
          call.then((g) => (g ? client.release(g) : false)).catch(() => {});
          return { outcome: "unknown", reason: "timeout" };
        }
        return { outcome: "unknown", reason: r.error.detail };
      }
      if (r.value === null) return { outcome: "denied", reason: "held" };
      const token = tokenOf(r.value) ?? null;
      if (lock.fencing && token === null)
        return { outcome: "unknown", reason: "the adapter says fencing: true but the grant has no token" };
      return { outcome: "granted", token, handle: { request: req, state: r.value } };
    },
    async release(_env, handle: LockHandle) {
      const r = await callWithDeadline(
        "library",
        callTimeoutMs,
        async () => client.release(handle.state as PlainGrant),
        threw,
      );
      if (!r.ok) return { outcome: "unknown", reason: r.error.detail ?? "timeout" };
      return r.value ? { outcome: "released" } : { outcome: "not-held" };
    },
  };
}

/** The adapter's own `write`, as lockcheck's resource API: accepted or not, or `info` if it threw. */
function libraryResource(
  write: (grant: PlainGrant, value: string) => Promise<boolean>,
  grants: ReadonlyMap<string, PlainGrant>,
  callTimeoutMs: number,
): ResourceApi {
  return {
    async write(w, opts) {
      const grant = grants.get(w.grant);
      if (grant === undefined) return { ok: true, value: { accepted: false } };
      return callWithDeadline(
        RESOURCE_NODE,
        opts?.timeoutMs ?? callTimeoutMs,
        async () => ({ accepted: await write(grant, w.value) }),
        (e) => ({ ok: false, error: { kind: "timeout", node: RESOURCE_NODE, detail: errorText(e) } }),
      );
    },
  };
}

/**
 * An error the library throws outside any call (from one of its own timers, e.g. a lock-lost
 * callback that throws) ends this process as it would end your service, and is reported as a
 * warning of the run, so a client that vanished mid-run is not a mystery.
 */
function reportStrayErrors(send: Send): void {
  const die = (e: unknown): void => {
    const text = e instanceof Error ? (e.stack ?? e.message) : String(e);
    send(
      {
        type: "failed",
        message: `the library threw outside a call; the client process exits: ${text}`,
        library: true,
      },
      () => process.exit(1),
    );
  };
  process.on("uncaughtException", die);
  process.on("unhandledRejection", die);
}

export async function runLibraryClient(
  config: ChildConfig,
  library: LibraryChildConfig,
  io: ChildIo,
): Promise<void> {
  reportStrayErrors(io.send);
  const lock = await importLibrary(library.module, config.algorithm);
  const client = await lock.connect({
    clientId: config.clientId,
    now: io.clock.now,
    endpoints: library.endpoints,
    options: library.options,
  });
  const problem = plainClientProblem(client);
  if (problem !== null) throw new TypeError(`${fileURLToPath(library.module)}: ${problem}`);
  const ownWrite = client.write === undefined ? undefined : client.write.bind(client);
  let resourceConn: Redis | null = null;
  if (ownWrite === undefined) {
    if (config.resource.port === null || config.resource.mode === "fenced-txn")
      throw new Error(`library ${lock.name}: resource ${config.resource.mode} is not available`);
    resourceConn = connectRedis(config.resource.port);
    await resourceConn.connect();
  }

  const grants = new Map<string, PlainGrant>();
  const inner = libraryAlgorithm(lock, client, config.callTimeoutMs);
  // The workload writes by grant id: keep the library's grant for the adapter's own write.
  const algorithm: LockAlgorithm = {
    ...inner,
    async acquire(env, req) {
      const r = await inner.acquire(env, req);
      if (r.outcome === "granted") grants.set(req.owner, r.handle.state as PlainGrant);
      return r;
    },
  };
  let t0 = 0n;
  const sinceStartNs = (): number => Number(process.hrtime.bigint() - t0);
  const env: LockEnv = {
    clientId: config.clientId,
    now: io.clock.now,
    sleep: io.clock.sleep,
    redis: [],
    redisAll: fanOut([]),
    etcd: null,
    zk: null,
    resource:
      resourceConn !== null
        ? redisResourceApi(resourceConn, config.resource.mode === "fenced", config.callTimeoutMs)
        : libraryResource(ownWrite!, grants, config.callTimeoutMs),
    checkpoint: createCheckpoint(config, io.links, io.send, sinceStartNs, io.clock),
  };

  io.send({ type: "ready" });
  t0 = await io.started;
  const recorder = createFileRecorder(config.eventsFile, t0, (kind) => io.send({ type: "event", kind }));
  // A pause inside a call stops this whole process, the library's own timers included.
  const rec = selfStoppingPausesInCall(recorder, config.pauseInCall ?? [], io.send, sinceStartNs, io.clock);
  try {
    await runClient(env, algorithm, config.plan, config.workload, rec);
  } finally {
    recorder.close();
    resourceConn?.disconnect();
    await Promise.race([
      Promise.resolve()
        .then(() => client.close?.())
        .catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref()),
    ]);
  }
}
