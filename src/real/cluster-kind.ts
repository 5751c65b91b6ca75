/** Where a real target's servers run: local processes, or Docker containers (src/real/docker/). */
export const CLUSTERS = ["process", "docker"] as const;
export type Cluster = (typeof CLUSTERS)[number];
