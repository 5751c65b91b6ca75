/**
 * Where real servers run, as every command that starts them takes it: `--cluster` and, with
 * `--cluster docker`, the images and Compose file. One definition, so that `run`, `fuzz`,
 * `shrink`, `replay` and `gate` accept the same flags and print commands that repeat them.
 */
import type { Command } from "commander";
import type { Cluster, ServerPlacement } from "../api/catalog.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { parseClusterFlag } from "./flags.js";

export interface PlacementFlags {
  cluster?: string;
  redisImage?: string;
  etcdImage?: string;
  compose?: string;
}

/** Adds `--cluster <kind>` (help `clusterHelp`, default `clusterDefault`) and the docker options. */
export function addPlacementOptions(cmd: Command, clusterHelp: string, clusterDefault?: Cluster): Command {
  return cmd
    .option("--cluster <kind>", clusterHelp, clusterDefault)
    .option(
      "--redis-image <image>",
      "with --cluster docker: Redis image (default: $LOCKCHECK_REDIS_IMAGE, then redis:7)",
    )
    .option(
      "--etcd-image <image>",
      "with --cluster docker: etcd image (default: $LOCKCHECK_ETCD_IMAGE, then gcr.io/etcd-development/etcd:v3.5.17)",
    )
    .option(
      "--compose <file>",
      "with --cluster docker: a Compose file of your own instead of docker/compose.*.yml",
    );
}

const DOCKER_ONLY = [
  ["redisImage", "--redis-image"],
  ["etcdImage", "--etcd-image"],
  ["compose", "--compose"],
] as const;

/**
 * The placement the flags say. `cluster` is the cluster that applies when `--cluster` is not
 * given (gate: its config's); docker options with local processes are an error, not ignored.
 */
export function parsePlacementFlags(
  flags: PlacementFlags,
  log?: (line: string) => void,
  fallback: Cluster = "process",
): Result<ServerPlacement & { cluster: Cluster }, InputError> {
  let cluster = fallback;
  if (flags.cluster !== undefined) {
    const parsed = parseClusterFlag(flags.cluster);
    if (!parsed.ok) return parsed;
    cluster = parsed.value;
  }
  if (cluster !== "docker") {
    const given = DOCKER_ONLY.find(([key]) => flags[key] !== undefined);
    if (given !== undefined)
      return err({ field: given[1], message: "only with --cluster docker (servers in containers)" });
    return ok({ cluster });
  }
  const images = {
    ...(flags.redisImage === undefined ? {} : { redis: flags.redisImage }),
    ...(flags.etcdImage === undefined ? {} : { etcd: flags.etcdImage }),
  };
  return ok({
    cluster,
    docker: {
      ...(Object.keys(images).length === 0 ? {} : { images }),
      ...(flags.compose === undefined ? {} : { composeFile: flags.compose }),
      ...(log === undefined ? {} : { log }),
    },
  });
}
