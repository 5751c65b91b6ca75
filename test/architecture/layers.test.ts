/**
 * The one-way rule, measured from the imports of src/: no two folders
 * import each other (directly or round a longer cycle), and every import points to a lower
 * layer of the table in docs/architecture.md — so that table stays true.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  cyclicComponents,
  describeCycle,
  type FileImport,
  fileImports,
  type UnitGraph,
  unitGraph,
  unitOf,
} from "./import-graph.js";

const REPO = join(import.meta.dirname, "..", "..");
const ROOTS = ["src"];

/** Unit → layer, from the rows `| <layer> | `unit`, `unit` | … |` of docs/architecture.md. */
function documentedLayers(): Map<string, number> {
  const doc = readFileSync(join(REPO, "docs", "architecture.md"), "utf8");
  const layers = new Map<string, number>();
  for (const row of doc.matchAll(/^\|\s*(\d+)\s*\|([^|]*)\|/gm)) {
    for (const name of row[2]!.matchAll(/`([^`]+)`/g))
      layers.set(name[1]!.replace(/\/$/, ""), Number(row[1]));
  }
  return layers;
}

function graphFrom(edges: Record<string, string[]>): UnitGraph {
  return unitGraph(
    Object.entries(edges).flatMap(([from, tos]) =>
      tos.map((to) => ({ from: `src/${from}/a.ts`, to: `src/${to}/b.ts` })),
    ),
  );
}

describe("the import graph", () => {
  const graph = unitGraph(fileImports(REPO, ROOTS));

  it("is found (the pattern sees static, dynamic and URL imports)", () => {
    expect(graph.get("src/checkers")?.has("src/history")).toBe(true);
    // src/api/check-file.ts loads ./lin-check.js through new URL(…, import.meta.url).
    const api = fileImports(REPO, ["src/api"]).filter((i) => i.to === "src/api/lin-check.ts");
    expect(api.map((i) => i.from)).toContain("src/api/check-file.ts");
    // src/real/client/child-main.ts imports the lock algorithm loader with import().
    const child = fileImports(REPO, ["src/real"]).filter((i) => i.from === "src/real/client/child-main.ts");
    expect(child.some((i) => i.to.endsWith("/lock-algorithm.ts"))).toBe(true);
  });

  it("has no cycle between folders", () => {
    const cycles = cyclicComponents(graph).map((c) => `${c.join(", ")}:\n${describeCycle(graph, c)}`);
    expect(cycles, `folder cycles:\n${cycles.join("\n")}`).toEqual([]);
  });

  it("places every folder in a layer of docs/architecture.md", () => {
    const layers = documentedLayers();
    const missing = [...graph.keys()].filter((u) => !layers.has(u)).sort();
    expect(missing, "folders missing from the layer table of docs/architecture.md").toEqual([]);
    const stale = [...layers.keys()].filter((u) => !graph.has(u)).sort();
    expect(stale, "rows of the layer table of docs/architecture.md naming no folder").toEqual([]);
  });

  it("points every import to a lower layer", () => {
    const layers = documentedLayers();
    const uphill: string[] = [];
    for (const [from, edges] of graph) {
      for (const [to, imports] of edges) {
        const a = layers.get(from);
        const b = layers.get(to);
        if (a === undefined || b === undefined || b < a) continue;
        uphill.push(
          `${from} (layer ${a}) imports ${to} (layer ${b}): ${[...new Set(imports.map((i) => i.from))].join(", ")}`,
        );
      }
    }
    expect(uphill.sort(), `imports that do not point to a lower layer:\n${uphill.join("\n")}`).toEqual([]);
  });
});

/**
 * The cli is a thin front end: each command parses its flags, calls one function of src/api and
 * formats what it returns. So src/cli imports only the api, the report formatters, the
 * Result type, the domain-free helpers and itself (libraries such as commander are not
 * relative imports and are not counted). Type imports count too: the api re-exports the types
 * the cli reads (src/api/types.ts).
 */
const CLI_MAY_IMPORT = ["src/cli", "src/api", "src/report", "src/result.ts", "src/util"];

function cliImportsOutsideFront(imports: readonly FileImport[]): string[] {
  return imports
    .filter((i) => unitOf(i.from) === "src/cli" && !CLI_MAY_IMPORT.includes(unitOf(i.to)))
    .map((i) => `${i.from} imports ${i.to}`)
    .sort();
}

describe("the cli front end", () => {
  it("imports only src/api, src/report, src/result.ts, src/util and itself", () => {
    const outside = cliImportsOutsideFront(fileImports(REPO, ROOTS));
    expect(outside, `src/cli must go through src/api:\n${outside.join("\n")}`).toEqual([]);
  });

  it("is told apart: an import of the runner or a checker from src/cli is named", () => {
    const imports: FileImport[] = [
      { from: "src/cli/commands/fuzz.ts", to: "src/api/fuzz.ts" },
      { from: "src/cli/commands/fuzz.ts", to: "src/report/colors.ts" },
      { from: "src/cli/commands/fuzz.ts", to: "src/result.ts" },
      { from: "src/cli/commands/fuzz.ts", to: "src/util/duration.ts" },
      { from: "src/cli/commands/fuzz.ts", to: "src/cli/flags.ts" },
      { from: "src/cli/commands/fuzz.ts", to: "src/runner/workers/fuzz-parallel.ts" },
      { from: "src/cli/errors.ts", to: "src/checkers/verdict.ts" },
      { from: "src/api/fuzz.ts", to: "src/runner/fuzz.ts" },
    ];
    expect(cliImportsOutsideFront(imports)).toEqual([
      "src/cli/commands/fuzz.ts imports src/runner/workers/fuzz-parallel.ts",
      "src/cli/errors.ts imports src/checkers/verdict.ts",
    ]);
  });
});

describe("cycle detection", () => {
  it("names a cycle of three folders and the imports that make it", () => {
    const graph = graphFrom({ a: ["b"], b: ["c"], c: ["a", "d"], d: [] });
    const cycles = cyclicComponents(graph);
    expect(cycles).toEqual([["src/a", "src/b", "src/c"]]);
    expect(describeCycle(graph, cycles[0]!)).toBe(
      [
        "  src/a → src/b   (src/a/a.ts imports src/b/b.ts)",
        "  src/b → src/c   (src/b/a.ts imports src/c/b.ts)",
        "  src/c → src/a   (src/c/a.ts imports src/a/b.ts)",
      ].join("\n"),
    );
  });

  it("finds none in a graph that only points one way", () => {
    expect(cyclicComponents(graphFrom({ a: ["b", "c"], b: ["c"], c: [] }))).toEqual([]);
  });
});
