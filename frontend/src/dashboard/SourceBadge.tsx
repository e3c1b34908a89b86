import { sourceLabel, sourceTone } from "./format";

/** The source of a figure: RAPL, IPMI or LIVE (measured), MODEL (estimated), MIXED, or PAPER / REQUEST (given);
 * the tooltip spells it out. A modelled figure never carries a measured badge. */
export function SourceBadge({
  source,
  sources = [],
  testId = "power-source",
}: {
  source: string | null | undefined;
  sources?: readonly string[];
  testId?: string;
}) {
  const tone = sourceTone(source);
  const text = source == null ? "NONE" : source.toUpperCase();
  return (
    <span
      className={`dash-source dash-source-${tone}`}
      title={`Source: ${sourceLabel(source, sources)}`}
      data-testid={testId}
      data-source={source ?? ""}
    >
      {text}
    </span>
  );
}

/** A figure the cost model predicted, as a small labelled line. */
export function ModelLine({ text }: { text: string }) {
  return (
    <span className="dash-model" title="the cost model's prediction for this placement, not a measurement">
      model: {text}
    </span>
  );
}
