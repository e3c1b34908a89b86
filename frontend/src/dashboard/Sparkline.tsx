import { memo } from "react";

import { type ChartRef, chartKey } from "./chartFigures";
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
  /** The figure's chart: the sparkline is then a button that opens it (`onChart`), named `chartLabel`. */
  chart?: ChartRef;
  chartLabel?: string;
  onChart?: (chart: ChartRef) => void;
}

/** Props equal for drawing: the chart compared by the figure it names (callers build it anew each render). */
function sameProps(a: SparklineProps, b: SparklineProps): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof SparklineProps)[]);
  for (const key of keys) {
    const equal =
      key === "chart" ? (a.chart && chartKey(a.chart)) === (b.chart && chartKey(b.chart)) : a[key] === b[key];
    if (!equal) return false;
  }
  return true;
}

/** The last minutes of one figure: a fixed-size SVG with a single path; a button opening the figure's chart when
 * it has one. */
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
  chart,
  chartLabel,
  onChart,
}: SparklineProps) {
  const shown = { t0: windowEnd - HISTORY_MS, t1: windowEnd };
  const line = sparklinePath(series, { ...shown, width, height, gapMs, reduce, minTop });
  const title = `${label}, last ${HISTORY_MS / 60_000} min${formatTop ? ` (top: ${formatTop(line.top)})` : ""}`;
  const svg = (
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
  if (!chart || !onChart) return svg;
  return (
    <button
      type="button"
      className="dash-spark-open"
      aria-label={chartLabel}
      aria-haspopup="dialog"
      title={`${title}: open its chart`}
      data-chart={chartKey(chart)}
      onClick={() => onChart(chart)}
    >
      {svg}
    </button>
  );
}, sameProps);
