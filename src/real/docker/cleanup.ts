/**
 * Finding and removing lockcheck's own containers and networks, selected by label only
 * (labels.ts): one run's, or every one whose owning lockcheck process is gone, or every one.
 * Used by a run's teardown, by the exit handlers and the watcher (cleaner-main.ts) and by
 * `lockcheck clean`. Containers go first (paused ones are unpaused so nothing is left frozen),
 * with their anonymous volumes, then the networks.
 */
import type Docker from "dockerode";
import { LABEL_NODE, LABEL_OWNER, LABEL_RUN, labelFilter, ownerIsGone } from "./labels.js";

export interface Selection {
  /** Only this run's objects; otherwise every lockcheck object. */
  runId?: string;
  /** Also objects whose owning lockcheck process is still running (default: leave those). */
  includeLive?: boolean;
}

export interface FoundObject {
  readonly kind: "container" | "network";
  readonly id: string;
  readonly name: string;
  readonly run: string;
  /** The container's schedule node, for messages. */
  readonly node?: string;
  /** True when the owning process is still running (it is left alone unless includeLive). */
  readonly live: boolean;
  readonly paused?: boolean;
}

export interface CleanReport {
  removed: FoundObject[];
  /** Left alone because their run is still going on. */
  skipped: FoundObject[];
  /** What could not be removed, and why. */
  failures: { object: FoundObject; error: string }[];
}

/** Every lockcheck container and network the selection covers (live ones flagged). */
export async function findObjects(docker: Docker, sel: Selection): Promise<FoundObject[]> {
  const filters = labelFilter(sel.runId);
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  return [
    ...containers.map(
      (c): FoundObject => ({
        kind: "container",
        id: c.Id,
        name: (c.Names[0] ?? c.Id).replace(/^\//, ""),
        run: c.Labels[LABEL_RUN] ?? "?",
        node: c.Labels[LABEL_NODE],
        live: !ownerIsGone(c.Labels[LABEL_OWNER]),
        paused: c.State === "paused",
      }),
    ),
    ...networks.map(
      (n): FoundObject => ({
        kind: "network",
        id: n.Id,
        name: n.Name,
        run: n.Labels?.[LABEL_RUN] ?? "?",
        live: !ownerIsGone(n.Labels?.[LABEL_OWNER]),
      }),
    ),
  ];
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function statusOf(e: unknown): unknown {
  return typeof e === "object" && e !== null && "statusCode" in e ? e.statusCode : undefined;
}

function isNotFound(e: unknown): boolean {
  return statusOf(e) === 404;
}

/** The engine answers 403 "has active endpoints" while it is still detaching removed containers. */
function hasActiveEndpoints(e: unknown): boolean {
  return statusOf(e) === 403 && /active endpoints/.test(message(e));
}

const NETWORK_REMOVE_TRIES = 20;
const NETWORK_REMOVE_PAUSE_MS = 250;

/**
 * Removes a network once its endpoints are gone. A container's endpoint can outlive the
 * container's removal for a moment, and an endpoint of some other container (one the user
 * attached by hand) would never go: so each try first disconnects whatever is still attached.
 */
async function removeNetwork(docker: Docker, o: FoundObject): Promise<void> {
  const network = docker.getNetwork(o.id);
  for (let attempt = 1; ; attempt++) {
    try {
      await network.remove();
      return;
    } catch (e) {
      if (!hasActiveEndpoints(e) || attempt >= NETWORK_REMOVE_TRIES) throw e;
    }
    const info = (await network.inspect()) as { Containers?: Record<string, { Name?: string }> };
    // An endpoint whose container is already gone cannot be disconnected by the container's
    // id ("no such container"), only by the endpoint's name with force.
    await Promise.all(
      Object.entries(info.Containers ?? {}).map(([id, endpoint]) =>
        network
          .disconnect({ Container: id, Force: true })
          .catch(() =>
            endpoint.Name === undefined
              ? undefined
              : network.disconnect({ Container: endpoint.Name, Force: true }),
          )
          .catch(() => undefined),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, NETWORK_REMOVE_PAUSE_MS));
  }
}

async function removeContainer(docker: Docker, o: FoundObject): Promise<void> {
  const container = docker.getContainer(o.id);
  if (o.paused) {
    try {
      await container.unpause();
    } catch {
      // Removal below kills it anyway; unpausing first only keeps older engines happy.
    }
  }
  await container.remove({ force: true, v: true });
}

/** Removes what the selection covers; never throws for one object's failure. */
export async function removeObjects(docker: Docker, sel: Selection): Promise<CleanReport> {
  const report: CleanReport = { removed: [], skipped: [], failures: [] };
  const found = await findObjects(docker, sel);
  const remove = async (o: FoundObject): Promise<void> => {
    if (o.live && sel.includeLive !== true) {
      report.skipped.push(o);
      return;
    }
    try {
      if (o.kind === "container") await removeContainer(docker, o);
      else await removeNetwork(docker, o);
      report.removed.push(o);
    } catch (e) {
      if (isNotFound(e)) report.removed.push(o);
      else report.failures.push({ object: o, error: message(e) });
    }
  };
  // Networks only once no container of the run is attached to them.
  await Promise.all(found.filter((o) => o.kind === "container").map(remove));
  await Promise.all(found.filter((o) => o.kind === "network").map(remove));
  return report;
}
