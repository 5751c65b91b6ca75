/**
 * Entry point of a client child process: one simulated client of a real run. It runs the same
 * workload and lock-algorithm code as the simulator (src/workload/client.ts, src/locks/),
 * against real servers through real client libraries, and records its own history events.
 *
 * A pause of this client is a SIGSTOP of this whole process, so its lease keep-alives freeze
 * too, as in a real GC pause. A `pause-at` fault stops the process from inside
 * env.checkpoint(): it tells the parent, then SIGSTOPs itself; the parent SIGCONTs it later. A
 * `partition-at` or `delay-at` fault has the parent cut or delay its links there, and it waits
 * until they are.
 *
 * It exits when its workload is done, and at once when the IPC channel to the parent closes
 * (the parent died): a client never outlives the run that started it.
 */
import type { Redis } from "ioredis";
import type { LockEnv, RedisApi, ResourceApi } from "../../env/env.js";
import { fanOut } from "../../env/fan-out.js";
import { LOCK_ALGORITHMS } from "../../locks/index.js";
import type { LockAlgorithm } from "../../locks/lock.js";
import { runClient } from "../../workload/client.js";
import { connectRedis, redisApi } from "../adapters/redis.js";
import { redisResourceApi } from "../adapters/resource.js";
import { createCheckpoint } from "./checkpoint.js";
import { createClientClock } from "./clock.js";
import { createLinkRequests } from "./link-requests.js";
import { selfStoppingPausesInCall } from "./pause-in-call.js";
import { installProcessClock } from "./process-clock.js";
import type { ChildConfig, ChildMessage, ParentMessage } from "./protocol.js";
import { createFileRecorder } from "./recorder.js";

const send = (msg: ChildMessage, then?: () => void): void => {
  if (process.send === undefined || !process.connected) {
    then?.();
    return;
  }
  process.send(msg, undefined, {}, () => then?.());
};

process.on("disconnect", () => process.exit(0));

const links = createLinkRequests(send);

const clock = createClientClock();
// The client's clock is the whole process's, before a library or an adapter reads the time:
// clock faults reach Date.now() and the timers of a library (library-client.ts) and of the
// adapters' calls here (their deadlines run on the client's clock, as in the simulator).
installProcessClock(clock);
let startGun: ((t0: bigint) => void) | null = null;
const started = new Promise<bigint>((resolve) => {
  startGun = resolve;
});

process.on("message", (raw: unknown) => {
  const msg = raw as ParentMessage;
  switch (msg.type) {
    case "init":
      run(msg.config).catch((e: unknown) => {
        send({ type: "failed", message: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
          process.exit(1),
        );
      });
      return;
    case "start":
      startGun?.(BigInt(msg.t0));
      return;
    case "clock-jump":
      clock.jump(msg.deltaMs);
      return;
    case "clock-drift":
      clock.drift(msg.rate);
      return;
    case "links-changed":
      links.done(msg);
  }
});

async function run(config: ChildConfig): Promise<void> {
  if (config.library !== undefined) {
    const { runLibraryClient } = await import("./library-client.js");
    await runLibraryClient(config, config.library, { clock, started, send, links });
    send({ type: "done" }, () => process.exit(0));
    return;
  }
  const algorithm = await lockAlgorithm(config);
  const timeout = config.callTimeoutMs;
  let t0 = 0n;
  const redisConns: Redis[] = config.redisPorts.map((port) => connectRedis(port));
  // etcd3 (gRPC, protobuf) takes a second to load: only etcd targets pay for it.
  const etcdAdapter = config.etcdPorts.length > 0 ? await import("../adapters/etcd.js") : null;
  const etcdClient = etcdAdapter?.connectEtcd(config.etcdPorts, 2000) ?? null;
  if (etcdAdapter !== null && etcdClient !== null) await etcdAdapter.warmEtcd(etcdClient, 2000);
  const resourceConn = config.resource.port !== null ? connectRedis(config.resource.port) : null;
  await Promise.all(
    [...redisConns, ...(resourceConn === null ? [] : [resourceConn])].map((c) => c.connect()),
  );

  const redis: RedisApi[] = redisConns.map((c, i) => redisApi(`server:${i}`, c, timeout));
  let resource: ResourceApi;
  if (config.resource.mode === "fenced-txn") {
    if (etcdAdapter === null || etcdClient === null)
      throw new Error("fenced-txn resource needs an etcd cluster");
    resource = etcdAdapter.etcdTxnResourceApi(etcdClient, timeout);
  } else {
    if (resourceConn === null) throw new Error("resource: no resource server port");
    resource = redisResourceApi(resourceConn, config.resource.mode === "fenced", timeout);
  }

  const sinceStartNs = (): number => Number(process.hrtime.bigint() - t0);
  const env: LockEnv = {
    clientId: config.clientId,
    now: clock.now,
    sleep: clock.sleep,
    redis,
    redisAll: fanOut(redis),
    etcd: etcdAdapter === null || etcdClient === null ? null : etcdAdapter.etcdApi(etcdClient, timeout),
    zk: null,
    resource,
    checkpoint: createCheckpoint(config, links, send, sinceStartNs, clock),
  };

  send({ type: "ready" });
  t0 = await started;
  const recorder = createFileRecorder(config.eventsFile, t0, (kind) => send({ type: "event", kind }));
  const rec = selfStoppingPausesInCall(recorder, config.pauseInCall ?? [], send, sinceStartNs, clock);
  try {
    await runClient(env, algorithm, config.plan, config.workload, rec);
  } finally {
    recorder.close();
    for (const c of redisConns) c.disconnect();
    resourceConn?.disconnect();
    etcdClient?.close();
  }
  send({ type: "done" }, () => process.exit(0));
}

/** lockcheck's own algorithm by name, or the one a user's module exports. */
async function lockAlgorithm(config: ChildConfig): Promise<LockAlgorithm> {
  if (config.algorithmModule === undefined) {
    const builtIn = LOCK_ALGORITHMS.find((a) => a.name === config.algorithm);
    if (builtIn === undefined) throw new Error(`unknown lock algorithm "${config.algorithm}"`);
    return builtIn;
  }
  const { importLockAlgorithm } = await import("../../locks/lock-algorithm.js");
  const loaded = await importLockAlgorithm(config.algorithmModule, config.algorithm);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.value;
}
