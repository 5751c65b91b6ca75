/**
 * A 3-member etcd cluster on loopback (any odd size works): each member has a free client
 * port, a free peer port and its own data dir; fast raft timing (50 ms heartbeat, 500 ms
 * election timeout) keeps leader changes short under faults. A crashed member restarts
 * from its data dir and rejoins. On Linux the members reach each other through lockcheck's
 * peer links (peer-links.ts), so partitions can cut members apart.
 *
 * etcd ignores the clock shim (Go reads the clock through its own vDSO calls, not libc) and
 * its leases run on a monotonic clock anyway, so clock faults do not apply to etcd members.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../result.js";
import { type ManagedProcess, type ServerProcess, spawnManaged } from "../hygiene/managed.js";
import type { Reaper } from "../hygiene/reaper.js";
import { freePort, getJson, LOOPBACK, postJson, waitUntil } from "./net.js";
import { type PeerCut, type PeerLinks, peerLinksSupported, startPeerLinks } from "./peer-links.js";

export interface EtcdMember {
  /** Schedule name: "server:N". */
  readonly name: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  current(): ServerProcess | null;
  crash(): Promise<void>;
  /** Restarts from the data dir; the member rejoins the cluster. */
  restart(): Promise<Result<void, string>>;
}

export interface EtcdCluster {
  readonly members: readonly EtcdMember[];
  /** Index of the member that leads now (asked of every live member; majority answer), or null. */
  leader(timeoutMs?: number): Promise<number | null>;
  /**
   * Cuts the links between members `a` and members `b` (indices) until the returned heal.
   * Absent off Linux, where the members' connections cannot be told apart.
   */
  cutPeers?(a: readonly number[], b: readonly number[], how: PeerCut): () => void;
  /** Heals every cut still in force (between runs). */
  resetPeers?(): void;
  stop(): Promise<void>;
}

export interface EtcdClusterOptions {
  binary: string;
  size: number;
  /** Parent directory; each member gets a subdirectory. */
  dir: string;
  reaper: Reaper | null;
  startTimeoutMs?: number;
}

const MAX_ATTEMPTS = 3;

interface MemberSpec {
  name: string;
  memberName: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
}

function memberArgs(
  m: MemberSpec,
  advertisedPeerPort: number,
  initialCluster: string,
  token: string,
): string[] {
  const client = `http://${LOOPBACK}:${m.clientPort}`;
  const peer = `http://${LOOPBACK}:${m.peerPort}`;
  const advertisedPeer = `http://${LOOPBACK}:${advertisedPeerPort}`;
  return [
    "--name",
    m.memberName,
    "--data-dir",
    m.dataDir,
    "--listen-client-urls",
    client,
    "--advertise-client-urls",
    client,
    "--listen-peer-urls",
    peer,
    "--initial-advertise-peer-urls",
    advertisedPeer,
    "--initial-cluster",
    initialCluster,
    "--initial-cluster-state",
    "new",
    "--initial-cluster-token",
    token,
    "--heartbeat-interval",
    "50",
    "--election-timeout",
    "500",
    "--logger",
    "zap",
    "--log-level",
    "error",
    "--log-outputs",
    join(m.dataDir, "..", `${m.memberName}.log`),
  ];
}

async function healthy(clientPort: number): Promise<boolean> {
  const body = (await getJson(`http://${LOOPBACK}:${clientPort}/health`, 500)) as { health?: string } | null;
  return body?.health === "true";
}

export async function startEtcdCluster(opts: EtcdClusterOptions): Promise<Result<EtcdCluster, string>> {
  let lastError = "";
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const started = await tryStart(opts, attempt);
    if (started.ok) return started;
    lastError = started.error;
  }
  return err(lastError);
}

async function tryStart(opts: EtcdClusterOptions, attempt: number): Promise<Result<EtcdCluster, string>> {
  const specs: MemberSpec[] = [];
  for (let i = 0; i < opts.size; i++) {
    const memberName = `m${i}-a${attempt}`;
    const dataDir = join(opts.dir, memberName);
    mkdirSync(dataDir, { recursive: true });
    specs.push({
      name: `server:${i}`,
      memberName,
      clientPort: await freePort(),
      peerPort: await freePort(),
      dataDir,
    });
  }
  let procs: (ManagedProcess | null)[] = [];
  const peers: PeerLinks | null = peerLinksSupported()
    ? await startPeerLinks(
        specs.map((m) => m.peerPort),
        () => procs.map((p) => (p === null || p.hasExited() ? null : p.pid)),
      )
    : null;
  const advertised = (i: number): number => peers?.advertisedPort(i) ?? specs[i]!.peerPort;
  const initialCluster = specs.map((m, i) => `${m.memberName}=http://${LOOPBACK}:${advertised(i)}`).join(",");
  const token = `lockcheck-${process.pid}-${Date.now()}`;
  const launch = (m: MemberSpec, i: number): ManagedProcess =>
    spawnManaged(
      {
        label: `etcd ${m.name}`,
        command: opts.binary,
        args: memberArgs(m, advertised(i), initialCluster, token),
      },
      opts.reaper,
    );

  procs = specs.map(launch);
  const members: EtcdMember[] = specs.map((m, i) => ({
    name: m.name,
    clientPort: m.clientPort,
    peerPort: m.peerPort,
    dataDir: m.dataDir,
    current: () => procs[i] ?? null,
    async crash() {
      const p = procs[i];
      procs[i] = null;
      await p?.kill();
    },
    async restart() {
      if (procs[i] !== null) return ok(undefined);
      const p = launch(m, i);
      procs[i] = p;
      const problem = await waitUntil(() => healthy(m.clientPort), {
        timeoutMs: opts.startTimeoutMs ?? 20_000,
        intervalMs: 50,
        giveUp: () => (p.hasExited() ? "exited during restart" : null),
      });
      return problem === null ? ok(undefined) : err(`etcd ${m.name}: ${problem}`);
    },
  }));

  const stop = async (): Promise<void> => {
    await Promise.all(members.map((m) => m.crash()));
    await peers?.close();
  };

  const problems = await Promise.all(
    specs.map((m, i) =>
      waitUntil(() => healthy(m.clientPort), {
        timeoutMs: opts.startTimeoutMs ?? 20_000,
        intervalMs: 50,
        giveUp: () =>
          procs[i]?.hasExited() ? "exited during start-up (port taken?)" : (peers?.problem() ?? null),
      }),
    ),
  );
  const firstProblem = problems.findIndex((p) => p !== null);
  if (firstProblem >= 0) {
    await stop();
    return err(`etcd ${specs[firstProblem]!.name}: ${problems[firstProblem]} (logs in ${opts.dir})`);
  }

  const status = async (i: number, timeoutMs: number): Promise<{ self?: string; leader?: string } | null> => {
    const s = (await postJson(
      `http://${LOOPBACK}:${members[i]!.clientPort}/v3/maintenance/status`,
      {},
      timeoutMs,
    )) as { leader?: string; header?: { member_id?: string } } | null;
    return s === null ? null : { self: s.header?.member_id, leader: s.leader };
  };
  // Member ids never change (a restart keeps the data dir), so learn them once.
  const memberIds = (await Promise.all(members.map((_, i) => status(i, 2000)))).map((s) => s?.self);
  if (memberIds.some((id) => id === undefined)) {
    await stop();
    return err(`etcd: could not read member ids (logs in ${opts.dir})`);
  }

  const leader = async (timeoutMs = 500): Promise<number | null> => {
    const answers = await Promise.all(
      members.map((_, i) => (procs[i] === null || procs[i]?.isPaused() ? null : status(i, timeoutMs))),
    );
    const votes = new Map<string, number>();
    for (const a of answers) if (a?.leader !== undefined) votes.set(a.leader, (votes.get(a.leader) ?? 0) + 1);
    let best: string | null = null;
    for (const [id, n] of votes) if (best === null || n > (votes.get(best) ?? 0)) best = id;
    if (best === null) return null;
    const index = memberIds.indexOf(best);
    return index >= 0 ? index : null;
  };

  if (peers === null) return ok({ members, leader, stop });
  return ok({
    members,
    leader,
    cutPeers: (a, b, how) => peers.cut(a, b, how),
    resetPeers: () => peers.reset(),
    stop,
  });
}
