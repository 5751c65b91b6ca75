/**
 * Recognising a user's LockAlgorithm and importing one from its module. Kept free of the
 * target registry so a real-server client process can import a module cheaply.
 */
import { fileURLToPath } from "node:url";
import { err, formatInputError, ok, type Result } from "../result.js";
import type { LockAlgorithm } from "./lock.js";

export function isLockAlgorithm(x: unknown): x is LockAlgorithm {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.name === "string" &&
    typeof o.acquire === "function" &&
    typeof o.release === "function" &&
    typeof o.fencing === "boolean" &&
    (o.renews === undefined || typeof o.renews === "boolean") &&
    (o.servers === "redis" || o.servers === "etcd" || o.servers === "zk")
  );
}

/**
 * The LockAlgorithm a module (given by file URL) exports by default (or as `lock`), checked
 * to be the one named `expectedName`: what a real-server client process runs.
 */
export async function importLockAlgorithm(
  moduleUrl: string,
  expectedName: string,
): Promise<Result<LockAlgorithm, string>> {
  const { defaultExport, importModule, namedExports } = await import("../util/import-module.js");
  const mod = await importModule(fileURLToPath(moduleUrl));
  if (!mod.ok) return err(formatInputError(mod.error));
  const exported = defaultExport(mod.value) ?? namedExports(mod.value).lock;
  if (!isLockAlgorithm(exported)) return err(`${moduleUrl}: exports no LockAlgorithm`);
  if (exported.name !== expectedName)
    return err(`${moduleUrl}: exports lock "${exported.name}", expected "${expectedName}"`);
  return ok(exported);
}
