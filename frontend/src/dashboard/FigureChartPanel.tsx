import "./figureChart.css";

import { type RefObject, useEffect, useId, useMemo, useRef } from "react";

import { formatStep } from "../energy/timeRange";
import type { LiveView } from "../live/liveState";
import { type ChartRef, chartKey, figureSpec, ownerOf } from "./chartFigures";
import { type ChartRangeId, rangeLabel, rangeSeconds } from "./chartRange";
import { ChartRangePicker } from "./ChartRangePicker";
import { FigureChartLegend } from "./FigureChartLegend";
import {
  concreteSources,
  energyPoints,
  energySources,
  historyPoints,
  historySources,
  liveSources,
  recordedSeries,
  withLiveTail,
} from "./chartSeries";
import { FigureChart } from "./FigureChart";
import type { LiveRecorder } from "./recorder";
import { useFigureHistory } from "./useFigureHistory";
import { useModelAtLoad } from "./useModelAtLoad";

export interface FigureChartPanelProps {
  chart: ChartRef;
  clusterName: string;
  view: LiveView;
  recorder: LiveRecorder;
  /** The chart's right edge (ms, on whole seconds): now. */
  windowEnd: number;
  range: ChartRangeId;
  onRange: (range: ChartRangeId) => void;
  onClose: () => void;
}

/** Esc anywhere closes the panel; on open the panel takes the focus, on close it goes back to the sparkline that
 * opened it (unless it was moved elsewhere meanwhile, e.g. to another sparkline). */
function usePanelFocus(panel: RefObject<HTMLElement | null>, opener: string, onClose: () => void): void {
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // Not while a field outside the chart is being typed in: Esc there belongs to the field.
      const target = event.target as HTMLElement | null;
      const typing = target !== null && target.matches("input, textarea, select") && !panel.current?.contains(target);
      if (event.key === "Escape" && !typing) close.current();
    };
    document.addEventListener("keydown", onKey);
    const element = panel.current;
    element?.focus();
    return () => {
      document.removeEventListener("keydown", onKey);
      const active = document.activeElement;
      if (active === null || active === document.body || element?.contains(active)) {
        document.querySelector<HTMLElement>(`[data-chart="${CSS.escape(opener)}"]`)?.focus();
      }
    };
  }, [panel, opener]);
}

/** Where the chart's figures come from, in words. */
function originText(
  chart: ChartRef,
  clusterName: string,
  stepS: number | null,
  fromEnergy: boolean,
  namesSources: boolean,
): string {
  const step = stepS === null ? "" : `, ${formatStep(stepS)} steps`;
  const energy =
    chart.scope === "application"
      ? `GET /applications/${chart.name}/energy?cluster=${clusterName}`
      : `GET /clusters/${clusterName}/energy`;
  const values = fromEnergy
    ? `${energy} (the energy rollups: joules attributed to its instances ÷ its requests${step})`
    : `GET /clusters/${clusterName}/history (the stored 1 s rollups${step})`;
  const sources = namesSources && !fromEnergy ? `; sources over the range: ${energy}` : "";
  return `From ${values}, then the live messages since its last step${sources}.`;
}

/** One dashboard figure as a chart, in a panel docked at the foot of the page: the range picker, the chart with
 * its read-out, the legend (what is measured and its sources; the model's current value, dashed) and where the
 * figures come from. */
export function FigureChartPanel(props: FigureChartPanelProps) {
  const { chart, clusterName, view, recorder, windowEnd, range, onRange, onClose } = props;
  const spec = figureSpec(chart);
  const titleId = `fig-title-${useId().replace(/:/g, "")}`;
  const panel = useRef<HTMLElement>(null);
  usePanelFocus(panel, chartKey(chart), onClose);
  const data = useFigureHistory(clusterName, chart, range);
  const app = chart.scope === "application" ? view.applications.find((a) => a.deployment_id === chart.id) : undefined;
  const atLoad = useModelAtLoad(spec.model && app ? app.deployment_id : "", spec.model ? app?.throughput_rps : null);
  const modelled = atLoad && spec.model && atLoad.offered_rps ? (spec.model(atLoad) ?? null) : null;

  const fromEnergy = spec.values.from === "energy";
  const column = spec.values.from === "history" ? spec.values.column : 0;
  const stepS = fromEnergy ? (data.energy?.stepS ?? null) : (data.history?.step_s ?? null);
  const stepMs = (stepS ?? (fromEnergy ? 10 : 1)) * 1000;
  const t0 = windowEnd - rangeSeconds(range) * 1000;
  const live = recordedSeries(recorder, chart);
  const points = useMemo(() => {
    const server = fromEnergy
      ? data.energy ? energyPoints(data.energy) : []
      : data.history ? historyPoints(data.history, chart, column) : [];
    return withLiveTail(server, live.series, stepMs, t0);
    // live.version: the recorder's series are mutated in place; windowEnd moves the window (whole seconds)
  }, [data.history, data.energy, fromEnergy, chart, column, live.series, live.version, stepMs, t0]);

  const sources =
    spec.sources === "none"
      ? null
      : concreteSources([
          ...(spec.sources === "history" && data.history ? historySources(data.history, chart, column) : []),
          ...(spec.sources === "energy" && data.energy ? energySources(data.energy) : []),
          ...liveSources(view, chart),
        ]);
  const what = `${spec.label}, ${ownerOf(chart, clusterName)}`;
  return (
    <section
      ref={panel}
      className="fig-panel"
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid="chart-panel"
      data-chart-key={chartKey(chart)}
    >
      <header className="fig-panel-head">
        <h2 id={titleId}>
          {what.charAt(0).toUpperCase() + what.slice(1)} <span className="muted">· last {rangeLabel(range)}</span>
        </h2>
        <ChartRangePicker range={range} onRange={onRange} />
        <button type="button" className="secondary fig-close" onClick={onClose} data-testid="chart-close">
          Close
        </button>
      </header>
      <p className="fig-status" role={data.error ? "alert" : undefined} data-testid="chart-status">
        {data.error
          ? `Could not read the last ${rangeLabel(range)} from the server (${data.error}): ` +
            "only the live messages are shown."
          : data.loading
            ? `Reading the last ${rangeLabel(range)} from the server…`
            : ""}
      </p>
      <FigureChart
        points={points}
        stepMs={stepMs}
        t0={t0}
        t1={windowEnd}
        unit={spec.unit}
        minTop={spec.minTop}
        model={modelled}
        label={`${what}, last ${rangeLabel(range)}`}
        format={spec.format}
      />
      <FigureChartLegend
        spec={spec}
        sources={sources}
        sourcesError={spec.sources === "energy" ? data.energyError : null}
        model={modelled}
        modelLoad={atLoad?.offered_rps ?? null}
      />
      <p className="fig-origin muted" data-testid="chart-origin">
        {originText(chart, clusterName, stepS, fromEnergy, spec.sources === "energy")}
      </p>
    </section>
  );
}
