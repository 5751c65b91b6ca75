/**
 * Whether the docker tests can run here, and with which images. They need a running engine
 * and the images named by LOCKCHECK_REDIS_IMAGE / LOCKCHECK_ETCD_IMAGE (default: the local
 * images docker/build-images.sh builds; the tests never pull). Outside CI a missing piece
 * skips the docker tests with the reason printed; in CI (CI set) it fails them.
 */
import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { connectEngine } from "../../src/real/docker/engine.js";
import { LABEL_OWNER, ownerLabel } from "../../src/real/docker/labels.js";
import type { DockerImages } from "../../src/real/docker/topology.js";

export type DockerTestEnv =
  | { available: true; docker: Docker; images: Required<DockerImages> }
  | { available: false; reason: string };

export const TEST_IMAGES: Required<DockerImages> = {
  redis: process.env.LOCKCHECK_REDIS_IMAGE || "lockcheck-local/redis:debian",
  etcd: process.env.LOCKCHECK_ETCD_IMAGE || "lockcheck-local/etcd:debian",
};

export async function dockerTestEnv(): Promise<DockerTestEnv> {
  const docker = await connectEngine();
  if (!docker.ok) return { available: false, reason: docker.error };
  for (const image of Object.values(TEST_IMAGES)) {
    try {
      await docker.value.getImage(image).inspect();
    } catch {
      return {
        available: false,
        reason: `image ${image} is not on the engine (build it with docker/build-images.sh, or set LOCKCHECK_*_IMAGE)`,
      };
    }
  }
  return { available: true, docker: docker.value, images: TEST_IMAGES };
}

/**
 * True when the docker tests of a file should be skipped (printing why); in CI never: there a
 * missing engine makes `failIfUnavailable` fail the suite.
 */
export function skipDockerTests(env: DockerTestEnv): boolean {
  if (env.available || process.env.CI) return false;
  console.warn(`docker tests skipped: ${env.reason}`);
  return true;
}

/**
 * First line of every docker test: fails it when Docker is unavailable. Outside CI the test was
 * skipped already (skipDockerTests), so this fails only in CI, as it must.
 */
export function needDocker(env: DockerTestEnv): asserts env is Extract<DockerTestEnv, { available: true }> {
  if (!env.available) throw new Error(`Docker is required in CI (CI is set): ${env.reason}`);
}

/** A run id no other test uses. */
export function testRunId(tag: string): string {
  return `t${tag}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

/** The engine's lockcheck containers and networks of one run, by name. */
export async function leftovers(docker: Docker, runId: string): Promise<string[]> {
  const filters = { label: [`lockcheck.run=${runId}`] };
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  return [...containers.map((c) => c.Names[0] ?? c.Id), ...networks.map((n) => n.Name)];
}

/** Names of this test process's lockcheck containers now. */
export async function ourContainers(docker: Docker): Promise<string[]> {
  const filters = { label: [`${LABEL_OWNER}=${ownerLabel(process.pid)}`] };
  return (await docker.listContainers({ all: true, filters })).map((c) => c.Names[0] ?? c.Id);
}

/** Runs `work` while sampling this process's containers: the most seen at once, every name and image seen. */
export async function watchingContainers<T>(
  docker: Docker,
  work: () => Promise<T>,
): Promise<{ value: T; most: number; seen: Set<string>; images: Set<string> }> {
  let most = 0;
  const seen = new Set<string>();
  const images = new Set<string>();
  let stop = false;
  const filters = { label: [`${LABEL_OWNER}=${ownerLabel(process.pid)}`] };
  const sampler = (async () => {
    while (!stop) {
      const now = await docker.listContainers({ all: true, filters });
      most = Math.max(most, now.length);
      for (const c of now) {
        seen.add(c.Names[0] ?? c.Id);
        images.add(c.Image);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  try {
    return { value: await work(), most, seen, images };
  } finally {
    stop = true;
    await sampler;
  }
}
