import type { RanOn } from "../../report/gate-result.js";
import type { ServerPlacement, Target } from "../../targets/target.js";

/** Where a target's runs run: the simulator, or its servers where `where` places them. */
export function ranOn(target: Pick<Target, "deterministic">, where: ServerPlacement): RanOn {
  if (target.deterministic) return "simulator";
  return where.cluster === "docker" ? "docker" : "servers";
}
