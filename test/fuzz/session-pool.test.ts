/**
 * The sessions real shrinking runs candidates on, two at a time: a second is opened only when
 * two runs overlap, sessions are reused, every one opened is closed, and a session that cannot
 * be opened makes runs wait for a free one instead of failing.
 */
import { describe, expect, it } from "vitest";
import { sessionPool } from "../../src/runner/session-pool.js";
import type { TargetSession } from "../../src/targets/target.js";

function fakeSession(name: string, closed: string[]): TargetSession {
  return {
    run: async () => ({ ops: [] }) as never,
    serverPids: () => [],
    close: async () => {
      closed.push(name);
    },
  };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("sessionPool", () => {
  it("opens a second session only for overlapping runs, reuses them, and closes all", async () => {
    const closed: string[] = [];
    let opened = 0;
    const pool = sessionPool(
      fakeSession("first", closed),
      async () => fakeSession(`extra${++opened}`, closed),
      2,
    );
    const used: TargetSession[] = [];
    await pool.use(async (s) => used.push(s));
    await pool.use(async (s) => used.push(s));
    expect(pool.size()).toBe(1);
    expect(used[0]).toBe(used[1]);
    await Promise.all(
      [1, 2, 3, 4].map(() =>
        pool.use(async (s) => {
          used.push(s);
          await tick(10);
        }),
      ),
    );
    expect(pool.size()).toBe(2);
    expect(opened).toBe(1);
    expect(new Set(used).size).toBe(2);
    await pool.close();
    expect(closed.sort()).toEqual(["extra1", "first"]);
  });

  it("never has two runs on one session at once", async () => {
    const closed: string[] = [];
    const pool = sessionPool(fakeSession("a", closed), async () => fakeSession("b", closed), 2);
    const busy = new Set<TargetSession>();
    let clash = false;
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pool.use(async (s) => {
          if (busy.has(s)) clash = true;
          busy.add(s);
          await tick(i % 3);
          busy.delete(s);
        }),
      ),
    );
    expect(clash).toBe(false);
    expect(pool.size()).toBe(2);
  });

  it("when another session cannot be opened, runs wait for the one there is", async () => {
    const closed: string[] = [];
    let tries = 0;
    const pool = sessionPool(
      fakeSession("only", closed),
      async () => {
        tries++;
        throw new Error("no free port");
      },
      2,
    );
    const done = await Promise.all(
      [1, 2, 3].map((n) =>
        pool.use(async () => {
          await tick(5);
          return n;
        }),
      ),
    );
    expect(done).toEqual([1, 2, 3]);
    expect(tries).toBe(1);
    expect(pool.size()).toBe(1);
    await pool.close();
    expect(closed).toEqual(["only"]);
  });
});
