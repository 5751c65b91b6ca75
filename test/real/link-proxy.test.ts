/**
 * The per-link TCP proxy against a local echo server: traffic passes, a cut resets
 * connections and refuses new ones until healed, a hold delivers nothing until released
 * (then everything, in order), a delay adds latency in one direction only.
 */
import { createServer, type Server, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LinkProxy, startLinkProxy } from "../../src/real/proxy/link-proxy.js";

let echo: Server;
let echoPort = 0;
let proxy: LinkProxy;

beforeAll(async () => {
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, "127.0.0.1", () => r()));
  echoPort = (echo.address() as { port: number }).port;
  proxy = await startLinkProxy(echoPort);
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((r) => echo.close(() => r()));
});

interface Conn {
  sock: Socket;
  received: () => string;
  closed: () => boolean;
}

function connect(port: number): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const sock = new Socket();
    let data = "";
    let isClosed = false;
    sock.setEncoding("utf8");
    sock.on("data", (d: string) => {
      data += d;
    });
    sock.on("close", () => {
      isClosed = true;
    });
    sock.on("error", () => {});
    sock.once("error", reject);
    sock.connect(port, "127.0.0.1", () => resolve({ sock, received: () => data, closed: () => isClosed }));
  });
}

/** Connects and reports whether the connection was reset/closed within `ms`. */
async function isRefused(port: number, ms = 2000): Promise<boolean> {
  try {
    const c = await connect(port);
    const closed = await waitFor(c.closed, ms);
    c.sock.destroy();
    return closed;
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => boolean, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(5);
  return check();
}

describe("link proxy", () => {
  it("forwards bytes both ways", async () => {
    const c = await connect(proxy.port);
    c.sock.write("hello");
    expect(await waitFor(() => c.received() === "hello")).toBe(true);
    c.sock.destroy();
  });

  it("cut resets open connections and refuses new ones until released", async () => {
    const c = await connect(proxy.port);
    const release = proxy.cut();
    expect(await waitFor(c.closed)).toBe(true);
    const refused = await isRefused(proxy.port);
    release();
    expect(refused).toBe(true);
    const after = await connect(proxy.port);
    after.sock.write("back");
    expect(await waitFor(() => after.received() === "back")).toBe(true);
    after.sock.destroy();
  });

  it("hold (one direction) delivers nothing until released, then everything in order", async () => {
    const c = await connect(proxy.port);
    const release = proxy.hold("up");
    c.sock.write("a");
    c.sock.write("b");
    await sleep(150);
    expect(c.received()).toBe("");
    expect(c.closed()).toBe(false);
    release();
    expect(await waitFor(() => c.received() === "ab")).toBe(true);
    c.sock.destroy();
  });

  it("nested faults: the link is normal only when every one is released", async () => {
    const c = await connect(proxy.port);
    const r1 = proxy.hold("down");
    const r2 = proxy.hold("down");
    c.sock.write("x");
    r1();
    await sleep(100);
    expect(c.received()).toBe("");
    r2();
    expect(await waitFor(() => c.received() === "x")).toBe(true);
    c.sock.destroy();
  });

  it("delay adds latency in its direction", async () => {
    const c = await connect(proxy.port);
    const release = proxy.delay("down", 300);
    const start = Date.now();
    c.sock.write("slow");
    await sleep(150);
    expect(c.received()).toBe("");
    expect(await waitFor(() => c.received() === "slow")).toBe(true);
    expect(Date.now() - start).toBeGreaterThanOrEqual(290);
    release();
    c.sock.destroy();
  });
});

describe("bytes a client sent before it went away", () => {
  /** A server that records what it receives, and a proxy in front of it. */
  async function recordingServer() {
    let got = "";
    const server = createServer((s) => {
      s.setEncoding("utf8");
      s.on("data", (d: string) => {
        got += d;
      });
      s.on("error", () => {});
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const p = await startLinkProxy((server.address() as { port: number }).port);
    return {
      proxy: p,
      got: () => got,
      close: async () => {
        await p.close();
        await new Promise<void>((r) => server.close(() => r()));
      },
    };
  }

  /** A client writes through a 300-ms delay and goes away 20 ms later; the delay ends. */
  async function writeAndLeave(p: LinkProxy): Promise<void> {
    const release = p.delay("up", 300);
    const c = await connect(p.port);
    c.sock.write("late write");
    await sleep(20);
    c.sock.destroy();
    release();
  }

  it("still reach the server at their time through a delay, like packets on the wire; then the connection closes", async () => {
    const r = await recordingServer();
    try {
      await writeAndLeave(r.proxy);
      await sleep(100);
      expect(r.got()).toBe("");
      expect(await r.proxy.drained(0)).toBe(false);
      expect(await r.proxy.drained(2000)).toBe(true);
      // Drained: the proxy has written them to the server's socket; the server reads them a turn later.
      expect(await waitFor(() => r.got() === "late write", 500)).toBe(true);
      expect(await waitFor(() => r.proxy.connections() === 0)).toBe(true);
    } finally {
      await r.close();
    }
  });

  it("are lost when the link is cut before they arrive", async () => {
    const r = await recordingServer();
    try {
      await writeAndLeave(r.proxy);
      r.proxy.cut()();
      expect(await r.proxy.drained(1000)).toBe(true);
      await sleep(400);
      expect(r.got()).toBe("");
    } finally {
      await r.close();
    }
  });
});
