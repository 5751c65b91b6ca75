/** The shared flag parsers of src/cli/flags.ts: what they accept and the message of what they refuse. */
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/errors.js";
import {
  marginArg,
  parseClusterFlag,
  parseFaultsFlag,
  parsePartitionModeFlag,
  parseResourceFlag,
  positiveIntArg,
  seedArg,
  wholeNumberArg,
} from "../../src/cli/flags.js";

function refusal(parse: (text: string) => number, text: string): string {
  try {
    parse(text);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return (e as Error).message;
  }
  throw new Error(`${text} was accepted`);
}

describe("commander argument parsers", () => {
  it("take whole numbers in range and name the flag when they refuse", () => {
    expect(positiveIntArg("--runs")("12")).toBe(12);
    expect(refusal(positiveIntArg("--runs"), "0")).toBe("--runs must be a positive integer");
    expect(refusal(positiveIntArg("--workers"), "1.5")).toBe("--workers must be a positive integer");
    expect(seedArg("4294967295")).toBe(4294967295);
    expect(refusal(seedArg, "4294967296")).toBe("the seed must be an integer in 0..4294967295");
    expect(refusal(seedArg, "-1")).toBe("the seed must be an integer in 0..4294967295");
    expect(marginArg("0")).toBe(0);
    expect(refusal(marginArg, "x")).toBe("--margin must be a whole number of ms ≥ 0");
    const ms = wholeNumberArg(1, "expected ms", Number.MAX_SAFE_INTEGER);
    expect(refusal(ms, "1e300")).toBe("expected ms");
  });
});

describe("flag text parsers", () => {
  it("--faults: categories, skipping none and blanks; an unknown one names itself", () => {
    expect(parseFaultsFlag("pause, clock,,none")).toEqual({ ok: true, value: ["pause", "clock"] });
    const bad = parseFaultsFlag("pause,gremlins");
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.field).toBe("--faults");
      expect(bad.error.message).toContain('unknown fault category "gremlins"');
    }
  });

  it("--partition-mode: absent, cut or blackhole", () => {
    expect(parsePartitionModeFlag(undefined)).toEqual({ ok: true, value: undefined });
    expect(parsePartitionModeFlag("blackhole")).toEqual({ ok: true, value: "blackhole" });
    expect(parsePartitionModeFlag("drop")).toEqual({
      ok: false,
      error: { field: "--partition-mode", message: 'expected cut or blackhole, got "drop"' },
    });
  });

  it("--resource and --cluster", () => {
    expect(parseResourceFlag(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseResourceFlag("fenced")).toEqual({ ok: true, value: "fenced" });
    expect(parseResourceFlag("locked").ok).toBe(false);
    expect(parseClusterFlag("docker")).toEqual({ ok: true, value: "docker" });
    expect(parseClusterFlag("k8s")).toEqual({
      ok: false,
      error: { field: "--cluster", message: 'expected process or docker, got "k8s"' },
    });
  });

  it("a combined verdict's exit status", () => {
    expect([exitCodeOf(true), exitCodeOf(false), exitCodeOf("unknown")]).toEqual([0, 1, 2]);
  });
});
