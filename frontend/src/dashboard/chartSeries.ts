// A chart's points: the server's steps over the range (the cluster's history, or the energy history's), then
// the live tail, the recorder's samples newer than the last server step, averaged into steps of the same length,
// so the chart keeps moving between two reads of the server.

import { type EnergySeries, SOURCE_ORDER } from "../energy/series";
import type { LiveView } from "../live/liveState";
import type { FigurePoint } from "../viz/figureChart";
import type { ChartRef } from "./chartFigures";
import type { RingSeries } from "./history";
import type { LiveRecorder } from "./recorder";
import type { ServerHistory } from "./serverHistory";

type ServerPoint = readonly (number | string | null)[];

/** The points of one history series: [time ms, figures…] each step. */
function pointsOf(history: ServerHistory, ref: ChartRef): readonly ServerPoint[] {
  switch (ref.scope) {
    case "node":
      return history.nodes.find((n) => n.node_id === ref.id)?.points ?? [];
    case "application":
      return history.applications.find((a) => a.deployment_id === ref.id)?.points ?? [];
    case "cluster":
      return history.totals;
  }
}

const valueOf = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Column `column` of the figure's history points, in time order; a figure that is no number is null (a gap). */
export function historyPoints(history: ServerHistory, ref: ChartRef, column: number): FigurePoint[] {
  return pointsOf(history, ref)
    .map((p) => ({ t: Number(p[0]), v: valueOf(p[column]) }))
    .filter((p) => Number.isFinite(p.t))
    .sort((a, b) => a.t - b.t);
}

/** The sources of a node's watts over its history points (the last column), where it has watts. */
export function historySources(history: ServerHistory, ref: ChartRef, column: number): SourceGroup[] {
  const found = new Set<string>();
  for (const p of pointsOf(history, ref)) {
    const source = p[p.length - 1];
    if (valueOf(p[column]) !== null && typeof source === "string" && source !== "") found.add(source);
  }
  return [...found].map((source) => ({ source }));
}

/** The energy history's J/request at each step's end (steps without data are left out: gaps). */
export function energyPoints(series: EnergySeries): FigurePoint[] {
  return series.steps.map((s) => ({ t: s.t1, v: s.joulesPerRequest }));
}

/** The samples of `series` after `after` (ms), averaged over steps of `stepMs` ending at multiples of it, each at
 * its step's end; the newest, still filling, at its latest sample. A step whose samples have no value is null. */
export function liveTail(series: RingSeries | undefined, after: number, stepMs: number): FigurePoint[] {
  const out: (FigurePoint & { latest: number })[] = [];
  let end = Number.NaN;
  let sum = 0;
  let n = 0;
  const close = () => {
    if (out.length > 0) out[out.length - 1]!.v = n > 0 ? sum / n : null;
  };
  series?.forEachSince(after, (time, value) => {
    if (time <= after) return;
    const stepEnd = Math.ceil(time / stepMs) * stepMs;
    if (stepEnd !== end) {
      close();
      end = stepEnd;
      sum = 0;
      n = 0;
      out.push({ t: stepEnd, v: null, latest: time });
    }
    out[out.length - 1]!.latest = time;
    if (Number.isFinite(value)) {
      sum += value;
      n += 1;
    }
  });
  close();
  const last = out[out.length - 1];
  if (last) last.t = Math.min(last.t, last.latest);
  return out.map(({ t, v }) => ({ t, v }));
}

/** The recorder's samples of the figure, and its version (it changes with every sample taken). */
export function recordedSeries(recorder: LiveRecorder, ref: ChartRef): { series?: RingSeries; version: number } {
  switch (ref.scope) {
    case "node": {
      const h = recorder.nodes.get(ref.id);
      return { series: h?.[ref.figure], version: h?.version ?? 0 };
    }
    case "application": {
      const h = recorder.applications.get(ref.id);
      return { series: h?.[ref.figure], version: h?.version ?? 0 };
    }
    case "cluster":
      return { series: recorder.totals[ref.figure], version: recorder.totals.version };
  }
}

/** The server's points (time order), then the live tail after the last of them (after `since` when there is
 * none: the range's start). */
export function withLiveTail(
  server: readonly FigurePoint[],
  live: RingSeries | undefined,
  stepMs: number,
  since: number,
): FigurePoint[] {
  const lastServer = server.length > 0 ? server[server.length - 1]!.t : since;
  return [...server, ...liveTail(live, lastServer, stepMs)];
}

/** A figure's source as the API gives it: one source, or "mixed" with the sources it mixes (when known). */
export interface SourceGroup {
  source: string | null | undefined;
  sources?: readonly string[];
}

/** The sources of the groups, each once, a mix spelled out by its parts ("mixed" of model and rapl is model and
 * rapl; a mix whose parts are not given stays "mixed"), measured first, the model last. */
export function concreteSources(groups: readonly SourceGroup[]): string[] {
  const order: readonly string[] = SOURCE_ORDER;
  const found = new Set<string>();
  for (const { source, sources = [] } of groups) {
    if (!source) continue;
    if (source === "mixed" && sources.length > 0) for (const s of sources) found.add(s);
    else found.add(source);
  }
  const rank = (s: string) => (order.includes(s) ? order.indexOf(s) : order.length);
  return [...found].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The source of the figure's power in the live view now (its node's, its application's or the cluster's). */
export function liveSources(view: LiveView, ref: ChartRef): SourceGroup[] {
  const power =
    ref.scope === "node"
      ? view.nodes.find((n) => n.id === ref.id)?.power
      : ref.scope === "application"
        ? view.applications.find((a) => a.deployment_id === ref.id)?.power
        : view.totals?.power;
  return power ? [power] : [];
}

/** The sources of an energy history's steps over the range. */
export function energySources(series: EnergySeries): SourceGroup[] {
  return series.steps.map((s) => ({ source: s.source, sources: s.sources }));
}
