/**
 * One container of a run: created from a Compose service, labelled, attached to the run's
 * networks, its client port published on a free 127.0.0.1 port chosen by lockcheck (a fixed
 * host port survives a restart and a network reconnect; one Docker picks would not).
 */
import type Docker from "dockerode";
import { freePort, LOOPBACK } from "../cluster/net.js";
import type { ServiceSpec } from "./compose.js";
import { LABEL_NODE, runLabels } from "./labels.js";
import { dockerName, type RunNetworks } from "./network.js";

export interface CreatedContainer {
  readonly container: Docker.Container;
  readonly name: string;
  /** Host port on 127.0.0.1 that reaches the service's client port. */
  readonly port: number;
}

/** How many fresh host ports to try when the one picked was taken in the meantime. */
const PORT_ATTEMPTS = 3;

function isPortTaken(e: unknown): boolean {
  const text = e instanceof Error ? e.message : String(e);
  return /port is already allocated|address already in use/i.test(text);
}

async function create(
  docker: Docker,
  runId: string,
  spec: ServiceSpec,
  networks: RunNetworks,
  port: number,
): Promise<CreatedContainer> {
  const name = dockerName("lockcheck", runId, spec.service);
  const portKey = `${spec.containerPort}/tcp`;
  const container = await docker.createContainer({
    name,
    Image: spec.image,
    Cmd: [...spec.command],
    Env: Object.entries(spec.environment).map(([k, v]) => `${k}=${v}`),
    Labels: { ...runLabels(runId), [LABEL_NODE]: spec.node },
    ExposedPorts: { [portKey]: {} },
    HostConfig: {
      NetworkMode: networks.access,
      PortBindings: { [portKey]: [{ HostIp: LOOPBACK, HostPort: String(port) }] },
      RestartPolicy: { Name: "no" },
    },
    NetworkingConfig: { EndpointsConfig: { [networks.access]: {} } },
  });
  await docker
    .getNetwork(networks.peers)
    .connect({ Container: container.id, EndpointConfig: { Aliases: [spec.service] } });
  return { container, name, port };
}

/**
 * Creates and starts the container of `spec`. It does not wait for the server inside to
 * answer (members of an etcd cluster only become healthy together).
 */
export async function startServiceContainer(
  docker: Docker,
  runId: string,
  spec: ServiceSpec,
  networks: RunNetworks,
): Promise<CreatedContainer> {
  for (let attempt = 1; ; attempt++) {
    const created = await create(docker, runId, spec, networks, await freePort());
    try {
      await created.container.start();
      return created;
    } catch (e) {
      await created.container.remove({ force: true, v: true }).catch(() => {});
      if (!isPortTaken(e) || attempt >= PORT_ATTEMPTS) throw e;
    }
  }
}
