import "./energy.css";

import { useState } from "react";

import type { EnergyScope } from "./energyTypes";
import { EnergyView } from "./EnergyView";
import type { RangeChoice } from "./timeRange";
import { useEnergyHistory } from "./useEnergyHistory";

/** The energy history of an application, cluster or node, with its own range picker (last 1 h to begin). */
export function EnergyPanel({ scope, title = "Energy over time" }: { scope: EnergyScope; title?: string }) {
  const [choice, setChoice] = useState<RangeChoice>({ kind: "preset", preset: "1h" });
  const state = useEnergyHistory(scope, choice);
  return <EnergyView title={title} state={state} choice={choice} onChoose={setChoice} />;
}
