// The data-plane orchestrator's modes (docs/orchestrator.md), in the order the switch shows them.

import type { OrchestratorModeName } from "./adminApi";

export const ORCHESTRATOR_MODES: { mode: OrchestratorModeName; label: string; meaning: string }[] = [
  {
    mode: "migrate",
    label: "Migrate",
    meaning: "acts on what it detects: a microservice overloading its SmartNIC is migrated to the host",
  },
  {
    mode: "observe",
    label: "Observe",
    meaning: "detections and the decisions it would take are recorded as events; nothing moves",
  },
  { mode: "off", label: "Off", meaning: "heartbeats are not judged: no detection, no migration" },
];

/** Where the mode in force comes from, in words. */
export function describeSource(source: "set" | "default"): string {
  return source === "set" ? "set through the API" : "the controller's default (E3_ORCHESTRATOR)";
}
