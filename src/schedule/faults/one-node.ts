/**
 * The descriptor parts every fault aimed at one node (`node`: pause, crash, clock-jump,
 * clock-drift) shares: which nodes and client it hits, and how it follows a dropped or
 * renumbered client.
 */
import type { ClientRemap } from "./descriptor.js";
import { clientOf, fitNode } from "./numbers.js";

interface OnOneNode {
  node: string;
}

export function remapNode<F extends OnOneNode>(f: F, remap: ClientRemap): F | null {
  const node = remap.node(f.node);
  return node === null ? null : { ...f, node };
}

export const fitOneNode = <F extends OnOneNode>(f: F, clients: number): F => ({
  ...f,
  node: fitNode(f.node, clients),
});

export const theNode = (f: OnOneNode): string[] => [f.node];

export const nodeClient = (f: OnOneNode): number | undefined => clientOf(f.node);
