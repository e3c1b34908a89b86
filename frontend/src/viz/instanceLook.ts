// How an instance is drawn for its state (the API's placed | deploying | running | failed | seeding): the
// placement view must not draw an instance its agent refused, or one nothing executes, like one that runs. Pure.

/** running: as always; pending: deploying or seeding (dashed); unrun: placed where no agent runs (faded);
 * failed: refused by its agent (a red cross). */
export type InstanceLook = "running" | "pending" | "unrun" | "failed";

export const INSTANCE_LOOKS: readonly InstanceLook[] = ["running", "pending", "unrun", "failed"];

/** The look of an instance in `state`; no state at all (a layout without states) is drawn as running. */
export function instanceLook(state: string | undefined): InstanceLook {
  switch (state) {
    case undefined:
    case "running":
      return "running";
    case "placed":
      return "unrun";
    case "failed":
      return "failed";
    default:
      return "pending"; // deploying, seeding, and any state still on its way
  }
}

/** Instances of each look among `instances` (indices into `states`). */
export function countLooks(states: readonly string[] | undefined, instances: Iterable<number>): Record<InstanceLook, number> {
  const counts: Record<InstanceLook, number> = { running: 0, pending: 0, unrun: 0, failed: 0 };
  for (const i of instances) counts[instanceLook(states?.[i])]++;
  return counts;
}

/** The red of a refused instance's cross and outline. */
export const REFUSED_COLOR = "#d1203b";
/** How opaque an instance nothing executes is drawn. */
export const UNRUN_ALPHA = 0.35;
