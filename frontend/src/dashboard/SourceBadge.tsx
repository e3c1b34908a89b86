import { isMeasured, sourceLabel } from "./format";

/** The source of an energy figure: RAPL or IPMI (measured), MODEL (estimated), or MIXED; the tooltip spells it
 * out. A modelled figure never carries a measured badge. */
export function SourceBadge({ source, sources = [] }: { source: string | null | undefined; sources?: readonly string[] }) {
  const measured = isMeasured(source);
  const text = source == null ? "NONE" : source.toUpperCase();
  return (
    <span
      className={`dash-source ${measured ? "dash-source-measured" : "dash-source-estimated"}`}
      title={`Source: ${sourceLabel(source, sources)}`}
      data-testid="power-source"
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
