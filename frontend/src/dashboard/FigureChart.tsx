import { type KeyboardEvent, type PointerEvent, useId, useMemo, useState } from "react";

import type { UnitLadder } from "../viz/axisUnit";
import {
  type FigurePoint,
  type Readout,
  layoutFigureChart,
  readoutAt,
  readoutStep,
  readoutTimeLabel,
  timeAt,
} from "../viz/figureChart";

const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { top: 18, right: 14, bottom: 24, left: 52 };

/** Keys that move the read-out, and by how many points. */
const STEPS: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, PageUp: -10, PageDown: 10 };

export interface FigureChartProps {
  points: readonly FigurePoint[];
  stepMs: number;
  t0: number;
  t1: number;
  unit: UnitLadder;
  minTop: number;
  /** The cost model's current value, drawn dashed across the plot; null without one. */
  model: number | null;
  /** What the chart shows, for assistive technology ("power of node x, last 1 h"). */
  label: string;
  /** A value with its unit ("2.31 ms"). */
  format: (v: number) => string;
}

/** The read-out's text: "14:02:31 · 2.31 ms", or the time and "no data" in a gap. */
function readoutText(readout: Readout | null, span: number, format: (v: number) => string): string {
  if (readout === null) return "Point at the chart, or focus it and use ← → Home End, to read a value.";
  if (readout.kind === "gap") return `${readoutTimeLabel(readout.t, span)} · no data`;
  return `${readoutTimeLabel(readout.stop.t, span)} · ${format(readout.stop.v)}`;
}

/** One figure over time: time and value axes with units, the measured line broken at gaps (shaded), the model's
 * current value dashed, and a read-out under the pointer or moved with the arrow keys (a vertical rule on the
 * plot, the time and value as text). */
export function FigureChart({ points, stepMs, t0, t1, unit, minTop, model, label, format }: FigureChartProps) {
  const readoutId = `fig-readout-${useId().replace(/:/g, "")}`;
  const layout = useMemo(
    () =>
      layoutFigureChart({ t0, t1, width: WIDTH, height: HEIGHT, margin: MARGIN, points, stepMs, unit, model, minTop }),
    [t0, t1, points, stepMs, unit, model, minTop],
  );
  // The read-out follows a time, not a point: the points move as the live tail grows.
  const [at, setAt] = useState<number | null>(null);
  const readout = at === null ? null : readoutAt(layout, layout.chart.xOf(at));
  const { plot } = layout.chart;
  const bottom = plot.y + plot.height;
  const span = t1 - t0;

  const onPointer = (event: PointerEvent<SVGSVGElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width <= 0) return;
    setAt(timeAt(layout, ((event.clientX - box.left) * WIDTH) / box.width));
  };
  const onKey = (event: KeyboardEvent<SVGSVGElement>) => {
    const from = readout?.kind === "point" ? readout.stop.t : at;
    let next: Readout | null | undefined;
    if (event.key === "Home") next = readoutStep(layout, null, 1);
    else if (event.key === "End") next = readoutStep(layout, null, -1);
    else if (event.key in STEPS) next = readoutStep(layout, from, STEPS[event.key]!);
    if (next === undefined) return;
    event.preventDefault();
    if (next !== null && next.kind === "point") setAt(next.stop.t);
  };
  const ruleX = readout === null ? null : readout.kind === "point" ? readout.stop.x : readout.x;

  return (
    <div className="fig-chart">
      <svg
        className="fig-chart-svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="group"
        aria-label={label}
        aria-describedby={readoutId}
        tabIndex={0}
        data-testid="figure-chart"
        data-points={layout.stops.length}
        onPointerMove={onPointer}
        onPointerLeave={() => setAt(null)}
        onKeyDown={onKey}
      >
        {layout.chart.gaps.map((g, i) => (
          <rect
            key={`g${i}`}
            className="fig-gap"
            x={g.x}
            y={plot.y}
            width={g.width}
            height={plot.height}
            data-testid="chart-gap"
          />
        ))}
        <g className="fig-y-axis" data-testid="chart-y-axis">
          <text className="fig-unit" x={plot.x - 6} y={plot.y - 7} textAnchor="end" data-testid="chart-y-unit">
            {layout.unit}
          </text>
          {layout.yTicks.map((t) => (
            <g key={`y${t.y}`} className="fig-tick">
              <line className="fig-grid" x1={plot.x} x2={plot.x + plot.width} y1={t.y} y2={t.y} />
              <text x={plot.x - 6} y={t.y} dy="0.32em" textAnchor="end">
                {t.label}
              </text>
            </g>
          ))}
        </g>
        <g className="fig-x-axis" data-testid="chart-x-axis">
          <line className="fig-axis" x1={plot.x} x2={plot.x + plot.width} y1={bottom} y2={bottom} />
          {layout.chart.xTicks.map((t, i) => (
            <text
              key={`x${i}`}
              className="fig-tick"
              x={t.x}
              y={bottom + 16}
              textAnchor="middle"
              data-testid="chart-x-tick"
            >
              {t.label}
            </text>
          ))}
        </g>
        {layout.chart.paths.map((p) => (
          <path key={`p${p.run}`} className="fig-line" d={p.d} data-testid="chart-line" />
        ))}
        {layout.chart.dots.map((d) => (
          <circle key={`d${d.run}`} className="fig-dot" cx={d.x} cy={d.y} r={2} />
        ))}
        {layout.modelY !== null && (
          <line
            className="fig-model"
            x1={plot.x}
            x2={plot.x + plot.width}
            y1={layout.modelY}
            y2={layout.modelY}
            data-testid="chart-model"
          />
        )}
        {ruleX !== null && (
          <g className="fig-rule" data-testid="chart-rule">
            <line x1={ruleX} x2={ruleX} y1={plot.y} y2={bottom} />
            {readout?.kind === "point" && <circle cx={readout.stop.x} cy={readout.stop.y} r={3.5} />}
          </g>
        )}
      </svg>
      <p
        id={readoutId}
        className={`fig-readout${readout === null ? " muted" : ""}`}
        aria-live="polite"
        data-testid="chart-readout"
      >
        {readoutText(readout, span, format)}
      </p>
    </div>
  );
}
