/**
 * `RedisFanOut` over per-server APIs: each server called alone, answers awaited together.
 * Worlds without a cheaper way (the real servers, tests) use this.
 */
import type { RedisApi, RedisFanOut } from "./env.js";

export function fanOut(nodes: readonly RedisApi[]): RedisFanOut {
  return {
    setNxPx: (key, value, ttlMs, opts) => Promise.all(nodes.map((n) => n.setNxPx(key, value, ttlMs, opts))),
    delIfEquals: (key, value, opts) => Promise.all(nodes.map((n) => n.delIfEquals(key, value, opts))),
  };
}
