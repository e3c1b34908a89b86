import type { ReactNode } from "react";

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

/** A figure the cost model predicted, as a small labelled line: "model at 100 req/s: 3.1 J/req". */
export function ModelLine({
  text,
  label = "model",
  title = "the cost model's prediction for this placement, not a measurement",
  testId,
  children,
}: {
  text: string;
  label?: string;
  title?: string;
  testId?: string;
  children?: ReactNode;
}) {
  return (
    <span className="dash-model" title={title} data-testid={testId}>
      {label}: {text}
      {children}
    </span>
  );
}
