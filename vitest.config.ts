import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real-server tests start processes on free ports; two workers fit this 2-core machine.
    maxWorkers: 2,
  },
});
