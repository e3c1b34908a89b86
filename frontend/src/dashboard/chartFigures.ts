// The dashboard's figures that open as a chart: which one (a node's, an application's, the cluster's), its unit
// and words, where its history comes from (the cluster's history column, or the energy history's J/request),
// whether its sources are named, and the cost model's value beside it.

import { formatWithUnit } from "../lib/figures";
import { UNITS, type UnitLadder } from "../viz/axisUnit";
import {
  formatJoulesPerRequest,
  formatLatencyUs,
  formatPercent,
  formatRequestsPerJoule,
  formatRps,
  formatWatts,
} from "./format";
import type { ModelAtLoad } from "./modelAtLoad";

export type NodeFigure = "queue" | "cpu" | "watts";
export type ApplicationFigure = "throughput" | "avgUs" | "p99Us" | "joulesPerRequest";
export type ClusterFigure = "watts" | "requestsPerJoule" | "throughput";

/** A figure to chart: a node's (by id, with its name), an application's (by deployment, with its name) or the
 * cluster's. The keys are the LiveRecorder's. */
export type ChartRef =
  | { scope: "node"; id: string; name: string; figure: NodeFigure }
  | { scope: "application"; id: string; name: string; figure: ApplicationFigure }
  | { scope: "cluster"; figure: ClusterFigure };

export interface FigureSpec {
  /** What it is, in words: "power", "p99 latency". */
  label: string;
  /** What each step of the line is (whether measured or estimated, the legend says from its sources). */
  eachStep: string;
  unit: UnitLadder;
  /** A value with its unit, for the read-out. */
  format: (v: number) => string;
  /** The y axis reaches at least this high. */
  minTop: number;
  /** Where the history comes from: a column of the cluster's history points, or the energy history's J/request
   * (the cluster's history has none: its attribution is the energy history's). */
  values: { from: "history"; column: number } | { from: "energy" };
  /** An energy figure names its sources: those of the history's points (a node's watts), or of the energy
   * history over the range (the cluster's watts and requests per joule, an application's J/request). */
  sources: "none" | "history" | "energy";
  /** The cost model's value at the measured load, in the chart's unit (µs, J/req), for the figures it predicts. */
  model?: (m: ModelAtLoad) => number | null | undefined;
}

const formatPackets = (v: number) => formatWithUnit(v, "pkt");
const usFromMs = (ms: number | null | undefined) => (typeof ms === "number" ? ms * 1000 : null);

const NODE: Record<NodeFigure, FigureSpec> = {
  queue: {
    label: "queue depth",
    eachStep: "mean queue depth of each step",
    unit: UNITS.packets,
    format: formatPackets,
    minTop: 10,
    values: { from: "history", column: 1 },
    sources: "none",
  },
  cpu: {
    label: "CPU",
    eachStep: "mean CPU utilisation of each step",
    unit: UNITS.fraction,
    format: formatPercent,
    minTop: 1,
    values: { from: "history", column: 2 },
    sources: "none",
  },
  watts: {
    label: "power",
    eachStep: "mean watts of each step",
    unit: UNITS.watts,
    format: formatWatts,
    minTop: 10,
    values: { from: "history", column: 3 },
    sources: "history",
  },
};

const APPLICATION: Record<ApplicationFigure, FigureSpec> = {
  throughput: {
    label: "throughput",
    eachStep: "requests/s its entry primaries completed",
    unit: UNITS.requestsPerSecond,
    format: formatRps,
    minTop: 1,
    values: { from: "history", column: 1 },
    sources: "none",
  },
  avgUs: {
    label: "average latency",
    eachStep: "mean latency at its entry, arrival to reply",
    unit: UNITS.latencyUs,
    format: formatLatencyUs,
    minTop: 0,
    values: { from: "history", column: 2 },
    sources: "none",
    model: (m) => usFromMs(m.avg_latency_ms),
  },
  p99Us: {
    label: "p99 latency",
    eachStep: "the highest p99 of each step at its entry (an upper bound)",
    unit: UNITS.latencyUs,
    format: formatLatencyUs,
    minTop: 0,
    values: { from: "history", column: 3 },
    sources: "none",
    model: (m) => usFromMs(m.p99_latency_ms),
  },
  joulesPerRequest: {
    label: "joules per request",
    eachStep: "its attributed joules ÷ its requests, each step",
    unit: UNITS.joulesPerRequest,
    format: formatJoulesPerRequest,
    minTop: 0,
    values: { from: "energy" },
    sources: "energy",
    model: (m) => m.joules_per_request,
  },
};

const CLUSTER: Record<ClusterFigure, FigureSpec> = {
  watts: {
    label: "total power",
    eachStep: "the nodes' watts summed, each step",
    unit: UNITS.watts,
    format: formatWatts,
    minTop: 10,
    values: { from: "history", column: 1 },
    sources: "energy",
  },
  throughput: {
    label: "throughput",
    eachStep: "the applications' requests/s summed, each step",
    unit: UNITS.requestsPerSecond,
    format: formatRps,
    minTop: 1,
    values: { from: "history", column: 2 },
    sources: "none",
  },
  requestsPerJoule: {
    label: "requests per joule",
    eachStep: "the applications' requests/s over the nodes' watts, each step",
    unit: UNITS.requestsPerJoule,
    format: formatRequestsPerJoule,
    minTop: 0,
    values: { from: "history", column: 3 },
    sources: "energy",
  },
};

export function figureSpec(ref: ChartRef): FigureSpec {
  switch (ref.scope) {
    case "node":
      return NODE[ref.figure];
    case "application":
      return APPLICATION[ref.figure];
    case "cluster":
      return CLUSTER[ref.figure];
  }
}

/** Whose figure, in words: "node server-1/host", "application shop", "cluster rack". */
export function ownerOf(ref: ChartRef, clusterName: string): string {
  return ref.scope === "cluster" ? `cluster ${clusterName}` : `${ref.scope} ${ref.name}`;
}

/** The accessible name of a sparkline that opens the chart: "chart of power, node server-1/host". */
export function chartButtonLabel(ref: ChartRef, clusterName: string): string {
  return `chart of ${figureSpec(ref).label}, ${ownerOf(ref, clusterName)}`;
}

/** A key naming the figure (the sparkline that opens it carries it as data-chart). */
export function chartKey(ref: ChartRef): string {
  return ref.scope === "cluster" ? `cluster:${ref.figure}` : `${ref.scope}:${ref.id}:${ref.figure}`;
}
