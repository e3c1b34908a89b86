import { useId } from "react";

import { type TimeRunInput, layoutTimeChart } from "../viz/timeChart";
import { type EnergySeries, type EnergyStep, lineRuns, sourceLegend } from "./series";

const WIDTH = 720;
const HEIGHT = 170;
const MARGIN = { top: 8, right: 12, bottom: 22, left: 56 };

export type ChartFigure = "watts" | "joules_per_request";

/** The tooltip of one step: its time, figures and sources. */
function stepTitle(step: EnergyStep, figure: ChartFigure, format: (v: number | null) => string): string {
  const when = `${new Date(step.t0).toLocaleString("en-GB")} – ${new Date(step.t1).toLocaleTimeString("en-GB")}`;
  const value =
    figure === "watts"
      ? `${format(step.wattsMean)} mean, ${format(step.wattsMax)} max`
      : `${format(step.joulesPerRequest)} per request`;
  const parts = step.parts.map((p) => sourceLegend(p.source)).join(" + ");
  return `${when}: ${value} · ${parts}`;
}

/** One figure of the history over the range: watts as bars stacked by source (the model's hatched) with the
 * max as a line, or J/request as a line (dashed where modelled). Steps without data are shaded, never drawn as 0. */
export function EnergyChart({
  series,
  figure,
  label,
  format,
}: {
  series: EnergySeries;
  figure: ChartFigure;
  label: string;
  format: (v: number | null) => string;
}) {
  const hatch = `energy-hatch-${useId().replace(/:/g, "")}`;
  const bars = figure === "watts" ? series.steps.map((s) => ({ t0: s.t0, t1: s.t1, parts: s.parts.map((p) => ({ key: p.source, value: p.watts })) })) : [];
  const runs: TimeRunInput[] = lineRuns(series.steps, (s) => (figure === "watts" ? s.wattsMax : s.joulesPerRequest)).map((r) => ({
    key: r.cls,
    points: r.points,
  }));
  const layout = layoutTimeChart({
    t0: series.t0,
    t1: series.t1,
    width: WIDTH,
    height: HEIGHT,
    margin: MARGIN,
    bars,
    runs,
    gaps: series.gaps,
  });
  const { plot } = layout;
  const line = figure === "watts" ? "max" : "jpr";
  return (
    <svg
      className="energy-chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
      data-testid={`energy-chart-${figure}`}
      data-steps={series.steps.length}
    >
      <title>{label}</title>
      <defs>
        <pattern id={hatch} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width="6" height="6" className="energy-hatch-bg" />
          <line x1="0" y1="0" x2="0" y2="6" className="energy-hatch-line" />
        </pattern>
      </defs>
      {layout.gaps.map((g, i) => (
        <rect key={`g${i}`} className="energy-gap" x={g.x} y={plot.y} width={g.width} height={plot.height} data-testid="energy-gap">
          <title>no data</title>
        </rect>
      ))}
      {layout.yTicks.map((t) => (
        <g key={`y${t.value}`} className="energy-tick">
          <line x1={plot.x} x2={plot.x + plot.width} y1={t.y} y2={t.y} className="energy-grid" />
          <text x={plot.x - 6} y={t.y} dy="0.32em" textAnchor="end">
            {format(t.value)}
          </text>
        </g>
      ))}
      {layout.xTicks.map((t, i) => (
        <text key={`x${i}`} className="energy-tick" x={t.x} y={plot.y + plot.height + 15} textAnchor="middle">
          {t.label}
        </text>
      ))}
      {layout.rects.map((r) => {
        const step = series.steps[r.bar]!;
        return (
          <rect
            key={`${r.bar}-${r.part}`}
            className={`energy-bar energy-src-${r.key}`}
            x={r.x}
            y={r.y}
            width={r.width}
            height={r.height}
            fill={r.key === "model" ? `url(#${hatch})` : undefined}
            data-source={r.key}
          >
            <title>{stepTitle(step, figure, format)}</title>
          </rect>
        );
      })}
      {layout.paths.map((p) => (
        <path key={`p${p.run}`} className={`energy-line energy-line-${line} energy-cls-${p.key}`} d={p.d} data-cls={p.key} />
      ))}
      {layout.dots.map((d) => (
        <circle key={`d${d.run}`} className={`energy-dot energy-line-${line} energy-cls-${d.key}`} cx={d.x} cy={d.y} r={2.5} data-cls={d.key} />
      ))}
      <line className="energy-axis" x1={plot.x} x2={plot.x + plot.width} y1={plot.y + plot.height} y2={plot.y + plot.height} />
    </svg>
  );
}
