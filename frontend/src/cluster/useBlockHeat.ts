import { useMemo } from "react";
import { formatJoulesPerRequest } from "../lib/figures";
import type { ClusterGeometry } from "../viz/clusterLayout";
import { type BlockEnergy, type BlockFigureNode, blockEnergy, energyHeat } from "./blockEnergy";

/** What colours a rack or pod drawn as one block: the share of its cores reserved, or its live J/request. */
export type HeatBy = "reserved" | "energy";

export interface BlockHeat {
  /** For the canvas: each block's place on the heat ramp (NaN: no figure) and each pod block's printed figure;
   * null: cores reserved (its default). */
  places: { racks: Float64Array; pods: Float64Array; podFigures: string[] } | null;
  /** Each block's live figures, when coloured by J/request. */
  figures: { racks: BlockEnergy[]; pods: BlockEnergy[] } | null;
  /** The ramp's ends (J/request) and the watts' sources, for the legend; null without any figure. */
  range: { min: number; max: number; sources: string[] } | null;
}

const RESERVED: BlockHeat = { places: null, figures: null, range: null };

/** The blocks' heat. `liveKey` changes when a node's figures do (`live` is read then). */
export function useBlockHeat(
  heatBy: HeatBy,
  layout: { nodes: { id: string; server: number }[]; servers: { rack: number }[]; racks: unknown[] } | null,
  geometry: ClusterGeometry | null,
  live: readonly BlockFigureNode[],
  liveKey: string,
): BlockHeat {
  return useMemo(() => {
    if (heatBy !== "energy" || !layout || !geometry) return RESERVED;
    const figures = blockEnergy(layout, geometry.pods, live);
    // One scale for racks and pods, so a colour means the same J/request at every zoom.
    const heat = energyHeat([...figures.racks, ...figures.pods]);
    const rackCount = figures.racks.length;
    const sources = [...new Set(figures.racks.flatMap((b) => b.sources))].sort();
    const range = heat.min !== null && heat.max !== null ? { min: heat.min, max: heat.max, sources } : null;
    const podFigures = figures.pods.map((b) => (b.joulesPerRequest === null ? "no J/request" : formatJoulesPerRequest(b.joulesPerRequest)));
    return { places: { racks: heat.places.subarray(0, rackCount), pods: heat.places.subarray(rackCount), podFigures }, figures, range };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `live` is read when liveKey says it changed
  }, [heatBy, layout, geometry, liveKey]);
}
