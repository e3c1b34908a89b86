// The words for a figure's source (a power reading's, or a cost input's), shared by the live dashboard and the
// energy history.

/** The label of a power source: measured ones named, the model's called an estimate, a mix spelled out. */
export function sourceLabel(source: string | null | undefined, sources: readonly string[] = []): string {
  switch (source) {
    case "rapl":
      return "RAPL (measured)";
    case "ipmi":
      return "IPMI (measured)";
    case "ipmi-split":
      return "IPMI, a server's reading split to its nodes (measured)";
    case "model":
      return "model (estimated)";
    case "live":
      return "live (the cluster's heartbeats)";
    case "paper":
      return "the paper's figure";
    case "request":
      return "as you entered it";
    case "mixed": {
      const parts = [...sources].sort().map((s) => (s === "model" ? "model" : s.toUpperCase()));
      return `mixed: ${parts.join(" + ")}`;
    }
    default:
      return "no source";
  }
}
