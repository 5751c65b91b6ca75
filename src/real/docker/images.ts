/**
 * Making sure the images a topology names are on the engine: present ones are used as they
 * are; missing ones are pulled (the public defaults, e.g. redis:7), and a failed pull says
 * how to build local images instead (docker/build-images.sh) and pass them.
 */
import type Docker from "dockerode";
import { err, ok, type Result } from "../../result.js";
import type { Topology } from "./compose.js";

function statusCode(e: unknown): number | undefined {
  return typeof e === "object" && e !== null && "statusCode" in e ? Number(e.statusCode) : undefined;
}

async function isPresent(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (e) {
    if (statusCode(e) === 404) return false;
    throw e;
  }
}

async function pull(docker: Docker, image: string): Promise<void> {
  const stream = await docker.pull(image);
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (e: Error | null) => (e === null ? resolve() : reject(e)));
  });
}

/** Pulls every image of `topology` that the engine does not have yet. */
export async function ensureImages(
  docker: Docker,
  topology: Topology,
  log: (line: string) => void = () => {},
): Promise<Result<void, string>> {
  const images = [...new Set(topology.services.map((s) => s.image))];
  for (const image of images) {
    try {
      if (await isPresent(docker, image)) continue;
      log(`pulling ${image}`);
      await pull(docker, image);
      if (!(await isPresent(docker, image)))
        return err(`pulling ${image} finished but the engine still lacks it`);
    } catch (e) {
      return err(
        `image ${image} is not on the engine and could not be pulled (${e instanceof Error ? e.message : String(e)}); ` +
          "without registry access, build local images with docker/build-images.sh and pass them with " +
          "--redis-image / --etcd-image (or LOCKCHECK_REDIS_IMAGE / LOCKCHECK_ETCD_IMAGE)",
      );
    }
  }
  return ok(undefined);
}
