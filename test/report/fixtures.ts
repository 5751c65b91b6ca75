/**
 * Hand-made histories for report tests. `pausedHolderHistory` is the classic failure: client 0
 * holds the lock, is paused past its lease, client 1 acquires and writes, and client 0 wakes
 * up and writes again — accepted by an unfenced resource.
 */
import type { ClientOp, NemesisOp, Op } from "../../src/history/op.js";
import type { Schedule } from "../../src/schedule/schedule.js";

type WithoutIndex<T> = T extends unknown ? Omit<T, "index"> : never;
export type Draft = WithoutIndex<ClientOp | NemesisOp>;
const MS = 1_000_000;

/** Numbers ops by time (stable), as a world would. */
export function numbered(drafts: Draft[]): Op[] {
  return drafts
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.time - b.d.time || a.i - b.i)
    .map(({ d }, index) => ({ ...d, index }) as Op);
}

const lock = "L";

export function pausedHolderHistory(): Op[] {
  const at = (ms: number) => Math.round(ms * MS);
  return numbered([
    { time: at(0), process: 0, type: "invoke", f: "acquire", lock },
    { time: at(2), process: 0, type: "ok", f: "acquire", lock, grant: "0:0", token: 1n },
    { time: at(10), process: 0, type: "invoke", f: "write", lock, grant: "0:0", token: 1n, value: "0:0/0" },
    { time: at(12), process: 0, type: "ok", f: "write", lock, grant: "0:0", token: 1n, accepted: true },
    {
      time: at(15),
      process: "nemesis",
      type: "info",
      f: "pause",
      node: "client:0",
      value: { durationMs: 140 },
    },
    { time: at(20), process: 1, type: "invoke", f: "acquire", lock },
    { time: at(24), process: 1, type: "fail", f: "acquire", lock, error: "held" },
    { time: at(30), process: 2, type: "invoke", f: "acquire", lock },
    {
      time: at(60),
      process: "nemesis",
      type: "info",
      f: "partition",
      value: { a: ["server:2"], b: ["server:0", "server:1"] },
    },
    { time: at(80), process: 2, type: "info", f: "acquire", lock, error: "timeout" },
    {
      time: at(90),
      process: "nemesis",
      type: "info",
      f: "clock-jump",
      node: "server:1",
      value: { deltaMs: 250 },
    },
    { time: at(100), process: "nemesis", type: "info", f: "heal" },
    { time: at(110), process: 1, type: "invoke", f: "acquire", lock },
    { time: at(113), process: 1, type: "ok", f: "acquire", lock, grant: "1:1", token: 2n },
    { time: at(120), process: 1, type: "invoke", f: "write", lock, grant: "1:1", token: 2n, value: "1:1/0" },
    { time: at(122), process: 1, type: "ok", f: "write", lock, grant: "1:1", token: 2n, accepted: true },
    { time: at(130), process: "nemesis", type: "info", f: "crash", node: "server:0" },
    { time: at(140), process: 1, type: "invoke", f: "write", lock, grant: "1:1", token: 2n, value: "1:1/1" },
    { time: at(142), process: 1, type: "ok", f: "write", lock, grant: "1:1", token: 2n, accepted: true },
    { time: at(145), process: "nemesis", type: "info", f: "restart", node: "server:0" },
    { time: at(150), process: 1, type: "invoke", f: "release", lock, grant: "1:1" },
    { time: at(152), process: 1, type: "ok", f: "release", lock, grant: "1:1" },
    { time: at(155), process: "nemesis", type: "info", f: "resume", node: "client:0" },
    { time: at(161), process: 0, type: "invoke", f: "write", lock, grant: "0:0", token: 1n, value: "0:0/1" },
    { time: at(163), process: 0, type: "ok", f: "write", lock, grant: "0:0", token: 1n, accepted: true },
    { time: at(170), process: 0, type: "invoke", f: "release", lock, grant: "0:0" },
    { time: at(172), process: 0, type: "fail", f: "release", lock, grant: "0:0", error: "not-held" },
    { time: at(175), process: 2, type: "invoke", f: "acquire", lock },
    { time: at(178), process: 2, type: "ok", f: "acquire", lock, grant: "2:1", token: 3n },
    { time: at(185), process: 2, type: "invoke", f: "write", lock, grant: "2:1", token: 3n, value: "2:1/0" },
    { time: at(187), process: 2, type: "ok", f: "write", lock, grant: "2:1", token: 3n, accepted: false },
    { time: at(190), process: 2, type: "invoke", f: "write", lock, grant: "2:1", token: 3n, value: "2:1/1" },
    { time: at(200), process: 2, type: "info", f: "write", lock, grant: "2:1", token: 3n, error: "timeout" },
  ]);
}

export function pausedHolderSchedule(): Schedule {
  return {
    version: 1,
    target: "sim:redlock",
    resource: "unfenced",
    seed: 7,
    options: {
      lockName: lock,
      ttlMs: 100,
      callTimeoutMs: 50,
      horizonMs: 200,
      latencyMs: { min: 1, max: 3 },
      lossRate: 0,
      servers: 3,
    },
    clients: [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 160, writes: 2 }] },
      { id: 1, cycles: [{ thinkMs: 20, holdMs: 40, writes: 2 }] },
      { id: 2, cycles: [{ thinkMs: 30, holdMs: 20, writes: 2 }] },
    ],
    faults: [{ kind: "pause-at", client: 0, checkpoint: "before-write", occurrence: 1, durationMs: 140 }],
  };
}

/**
 * A long history: `clients` clients taking turns for `cycles` rounds, each writing `writes`
 * times, with a pause every tenth round; every 25th round a paused holder writes stale.
 */
export function longHistory(clients: number, cycles: number, writes: number): Op[] {
  const drafts: Draft[] = [];
  let t = 0;
  let token = 0n;
  for (let round = 0; round < cycles; round++) {
    const p = round % clients;
    const grant = `${p}:${round}`;
    token++;
    drafts.push({ time: t, process: p, type: "invoke", f: "acquire", lock });
    t += 2 * MS;
    drafts.push({ time: t, process: p, type: "ok", f: "acquire", lock, grant, token });
    for (let w = 0; w < writes; w++) {
      t += MS;
      drafts.push({
        time: t,
        process: p,
        type: "invoke",
        f: "write",
        lock,
        grant,
        token,
        value: `${grant}/${w}`,
      });
      t += MS;
      drafts.push({ time: t, process: p, type: "ok", f: "write", lock, grant, token, accepted: true });
    }
    if (round % 10 === 0) {
      drafts.push({ time: t, process: "nemesis", type: "info", f: "pause", node: `client:${p}` });
      drafts.push({ time: t + 3 * MS, process: "nemesis", type: "info", f: "resume", node: `client:${p}` });
    }
    if (round % 25 === 24 && token > 1n) {
      // the previous holder writes after this one did: a stale write
      const q = (round - 1) % clients;
      const old = `${q}:${round - 1}`;
      t += MS;
      drafts.push({
        time: t,
        process: q,
        type: "invoke",
        f: "write",
        lock,
        grant: old,
        token: token - 1n,
        value: `${old}/late`,
      });
      t += MS;
      drafts.push({
        time: t,
        process: q,
        type: "ok",
        f: "write",
        lock,
        grant: old,
        token: token - 1n,
        accepted: true,
      });
    }
    t += MS;
    drafts.push({ time: t, process: p, type: "invoke", f: "release", lock, grant });
    t += MS;
    drafts.push({ time: t, process: p, type: "ok", f: "release", lock, grant });
  }
  return numbered(drafts);
}
