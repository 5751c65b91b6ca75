/** A container as the faults see it (node-adapter.ts), against a fake container: no engine needed. */
import { describe, expect, it } from "vitest";
import type { DockerNode } from "../../src/real/docker/cluster.js";
import { adaptNode } from "../../src/real/docker/node-adapter.js";
import { ok } from "../../src/result.js";

/** A container that records the engine calls made on it, in order. */
function fakeContainer(): { node: DockerNode; calls: string[] } {
  const calls: string[] = [];
  let paused = false;
  let down = false;
  const node = {
    name: "server:1",
    containerName: "lc-test-server-1",
    port: 1,
    isPaused: () => paused,
    isDown: () => down,
    isIsolated: () => false,
    async pause() {
      calls.push("pause");
      paused = true;
    },
    async resume() {
      calls.push("unpause");
      paused = false;
    },
    async crash() {
      calls.push("kill");
      paused = false;
      down = true;
    },
    async restart() {
      calls.push("start");
      down = false;
      return ok(undefined);
    },
    async isolate() {
      calls.push("isolate");
    },
    async rejoin() {
      calls.push("rejoin");
    },
    mainPid: async () => (down ? null : 4242),
  } as unknown as DockerNode;
  return { node, calls };
}

describe("a container's pauses", () => {
  it("nest: overlapping pause faults keep it frozen until the later one ends", async () => {
    const { node, calls } = fakeContainer();
    const a = await adaptNode(node, []);
    const proc = a.current()!;
    proc.pause(); // fault 1 starts
    proc.pause(); // fault 2 starts, inside fault 1
    proc.resume(); // fault 2 ends: fault 1 still holds it
    await a.drain();
    expect(calls).toEqual(["pause"]);
    expect(proc.isPaused()).toBe(true);
    proc.resume(); // fault 1 ends
    await a.drain();
    expect(calls).toEqual(["pause", "unpause"]);
    expect(proc.isPaused()).toBe(false);
  });

  it("start again from zero after a crash and after the faults are undone between runs", async () => {
    const { node, calls } = fakeContainer();
    const a = await adaptNode(node, []);
    a.current()!.pause();
    await a.crash();
    expect((await a.restart()).ok).toBe(true);
    const restarted = a.current()!;
    restarted.pause();
    restarted.resume();
    await a.drain();
    expect(calls).toEqual(["pause", "kill", "start", "pause", "unpause"]);

    restarted.pause();
    restarted.pause();
    await a.undoFaults(); // a run left two pauses open
    calls.length = 0;
    restarted.pause();
    restarted.resume();
    await a.drain();
    expect(calls).toEqual(["pause", "unpause"]);
  });
});
