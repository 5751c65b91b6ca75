/** Small helpers that phrase history facts for anomaly explanations. */
import type { GrantInfo } from "./grants.js";

/** Nanoseconds as milliseconds for people, to the microsecond: "150 ms", "12.5 ms", "0.001 ms", "0 ms". */
export function formatMs(ns: number): string {
  const ms = ns / 1e6;
  const text = Number.isInteger(ms) ? String(ms) : ms.toFixed(3).replace(/\.?0+$/, "");
  return `${text} ms`;
}

/** "client 2 (grant 2:0, token 34)" */
export function describeHolder(g: GrantInfo): string {
  const token = g.token === undefined ? "no token" : `token ${g.token}`;
  return `client ${g.process} (grant ${g.grant}, ${token})`;
}
