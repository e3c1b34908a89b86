import { memo } from "react";

import type { RingSeries } from "./history";
import { HISTORY_MS } from "./recorder";
import { sparklinePath } from "./sparkline";

export interface SparklineProps {
  series: RingSeries | undefined;
  /** Samples recorded so far: a new one redraws (the series itself is mutated in place). */
  version: number;
  /** The window's right edge (ms), moved on whole seconds so an idle sparkline is not redrawn every render. */
  windowEnd: number;
  width?: number;
  height?: number;
  gapMs?: number;
  reduce?: "max" | "mean";
  minTop?: number;
  /** Text of the top of the scale ("50 pkt"), for the tooltip. */
  formatTop?: (top: number) => string;
  label: string;
}

/** The last minutes of one figure: a fixed-size SVG with a single path. */
export const Sparkline = memo(function Sparkline({
  series,
  windowEnd,
  width = 96,
  height = 22,
  gapMs = 1_000,
  reduce = "mean",
  minTop = 0,
  formatTop,
  label,
}: SparklineProps) {
  const line = sparklinePath(series, { t0: windowEnd - HISTORY_MS, t1: windowEnd, width, height, gapMs, reduce, minTop });
  const title = `${label}, last ${HISTORY_MS / 60_000} min${formatTop ? ` (top: ${formatTop(line.top)})` : ""}`;
  return (
    <svg
      className="dash-spark"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={title}
      data-since={line.since ?? ""}
    >
      <title>{title}</title>
      <path d={line.d} />
    </svg>
  );
});
