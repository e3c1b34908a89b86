// Joules per request of each rack and pod drawn as one block (the placement view zoomed out), from the live
// figures: the power of its nodes reporting current figures, divided by the requests per second their
// instances completed. A request an application serves passes through several instances, so this is joules
// per instance request, not per application request (the dashboard has those). The watts carry their
// source: on this machine the model's estimate, never a measurement. Pure: no DOM.

export interface BlockFigureNode {
  id: string;
  stale: boolean;
  power?: { watts: number; source: string } | null;
  instances: { requests_per_s: number | null }[];
}

export interface BlockEnergy {
  /** Nodes in the block, and those of them reporting current figures (the sums are over these). */
  nodes: number;
  reporting: number;
  watts: number;
  requestsPerS: number;
  /** watts / requestsPerS; null when no node reports or its instances completed no request. */
  joulesPerRequest: number | null;
  /** Where the watts came from (rapl | ipmi | ipmi-split | model), sorted. */
  sources: string[];
}

interface BlockLayout {
  nodes: { id: string; server: number }[];
  servers: { rack: number }[];
  racks: unknown[];
}

function emptyBlock(): BlockEnergy & { seen: Set<string> } {
  return { nodes: 0, reporting: 0, watts: 0, requestsPerS: 0, joulesPerRequest: null, sources: [], seen: new Set() };
}

function finish(block: BlockEnergy & { seen: Set<string> }): BlockEnergy {
  const { seen, ...figures } = block;
  return {
    ...figures,
    sources: [...seen].sort(),
    joulesPerRequest: block.reporting > 0 && block.requestsPerS > 0 ? block.watts / block.requestsPerS : null,
  };
}

/** Each rack's and pod's figures (`pods`: each pod's rack indices). */
export function blockEnergy(
  layout: BlockLayout,
  pods: readonly { racks: readonly number[] }[],
  live: readonly BlockFigureNode[],
): { racks: BlockEnergy[]; pods: BlockEnergy[] } {
  const byId = new Map(live.map((n) => [n.id, n]));
  const racks = layout.racks.map(emptyBlock);
  layout.nodes.forEach((node) => {
    const block = racks[layout.servers[node.server]?.rack ?? -1];
    if (!block) return;
    block.nodes++;
    const now = byId.get(node.id);
    if (!now || now.stale || !now.power) return;
    block.reporting++;
    block.watts += now.power.watts;
    block.seen.add(now.power.source);
    for (const i of now.instances) block.requestsPerS += i.requests_per_s ?? 0;
  });
  const podBlocks = pods.map((pod) => {
    const sum = emptyBlock();
    for (const r of pod.racks) {
      const rack = racks[r];
      if (!rack) continue;
      sum.nodes += rack.nodes;
      sum.reporting += rack.reporting;
      sum.watts += rack.watts;
      sum.requestsPerS += rack.requestsPerS;
      for (const source of rack.seen) sum.seen.add(source);
    }
    return finish(sum);
  });
  return { racks: racks.map(finish), pods: podBlocks };
}

/** Where each block's J/request sits on the heat ramp (0 the least, 1 the most; log scale, as J/request spans
 * orders of magnitude between a busy and an idle rack), NaN for a block without one; and the range. */
export function energyHeat(blocks: readonly BlockEnergy[]): { places: Float64Array; min: number | null; max: number | null } {
  const values = blocks.map((b) => b.joulesPerRequest).filter((j): j is number => j !== null && j > 0);
  const places = new Float64Array(blocks.length).fill(Number.NaN);
  if (values.length === 0) return { places, min: null, max: null };
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = Math.log(max) - Math.log(min);
  blocks.forEach((b, i) => {
    const j = b.joulesPerRequest;
    if (j !== null && j > 0) places[i] = span > 0 ? (Math.log(j) - Math.log(min)) / span : 0.5;
  });
  return { places, min, max };
}
