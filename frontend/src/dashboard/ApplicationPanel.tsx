import { memo } from "react";

import { routeHref } from "../lib/route";
import type { LiveApplication, LiveInstance, LiveNode } from "../live/types";
import { hasGraph } from "./appGraph";
import { type ApplicationFigure, type ChartRef, chartButtonLabel } from "./chartFigures";
import { ApplicationGraph } from "./ApplicationGraph";
import { Figure } from "./Figure";
import { formatJoulesPerRequest, formatLatencyMs, formatLatencyUs, formatRps } from "./format";
import { type Freshness, partialNote, shownFigure } from "./freshness";
import type { ApplicationHistory, LiveRecorder } from "./recorder";
import { energyGapTitle, formatLoad, gapRatio, type ModelAtLoad } from "./modelAtLoad";
import { ModelLine, SourceBadge } from "./SourceBadge";
import { Sparkline } from "./Sparkline";
import { useModelAtLoad } from "./useModelAtLoad";

/** The measured p99 in µs when the live channel sends one (agents measure each request from arrival at the
 * entry instance to its reply; null when none was answered in the window, or from agents that do not measure). */
export function measuredP99Us(app: LiveApplication): number | null {
  const p99 = app.latency.p99_us;
  return app.latency.basis === "measured_at_entry" && typeof p99 === "number" && Number.isFinite(p99) ? p99 : null;
}

/** What the average latency is: measured at the entry, or the execution-time path (a lower bound). */
export function latencyBasis(app: LiveApplication): { badge: string; title: string } {
  return app.latency.basis === "measured_at_entry"
    ? {
        badge: "measured",
        title: "mean latency of the requests its entry instances answered in the last second, arrival to reply (its downstream calls included; not the client's network)",
      }
    : {
        badge: "exec path ≥",
        title: "sum of mean execution times along the DAG's slowest path: no network, no queueing (a lower bound)",
      };
}

type ModelFigures = { avg_latency_ms?: number | null; p99_latency_ms?: number | null; joules_per_request?: number | null };

const CAPACITY_TITLE =
  "the cost model's knee for this placement: the entry rate at which its busiest node reaches the knee of its " +
  "latency curve (a capacity, not a prediction of the load)";

/** The model's figures beside a measured one: at the measured load when the API has answered for it, else the
 * placement's prediction at its knee, labelled so. */
function modelSub(
  atLoad: ModelAtLoad | null,
  predicted: LiveApplication["predicted"],
  figure: (m: ModelFigures) => string,
  testId: string,
) {
  if (atLoad !== null && atLoad.offered_rps !== null && atLoad.offered_rps !== undefined)
    return (
      <ModelLine
        label={`model at ${formatLoad(atLoad.offered_rps)}`}
        text={figure(atLoad)}
        title="the cost model's prediction for this placement at the measured load, not a measurement"
        testId={testId}
      />
    );
  if (!predicted) return null;
  return (
    <ModelLine
      label="model at its knee"
      text={figure(predicted)}
      title="the cost model's prediction for this placement at its knee (no load measured yet), not a measurement"
      testId={testId}
    />
  );
}

// .dash-app-row's height without its graph, to reserve the rows expected before data comes: the graph under the
// figures (as tall as its DAG) makes a row taller once its data is in.
const ROW_REM = 5.25;

interface RowProps {
  app: LiveApplication;
  clusterName: string;
  instances: readonly LiveInstance[];
  nodes: readonly LiveNode[];
  freshness: Freshness;
  history: ApplicationHistory | undefined;
  version: number;
  windowEnd: number;
  onChart: (chart: ChartRef) => void;
}

const ApplicationRow = memo(function ApplicationRow({
  app,
  clusterName,
  instances,
  nodes,
  freshness,
  history,
  version,
  windowEnd,
  onChart,
}: RowProps) {
  const chartOf = (figure: ApplicationFigure) => {
    const chart: ChartRef = { scope: "application", id: app.deployment_id, name: app.application, figure };
    return { chart, chartLabel: chartButtonLabel(chart, clusterName), onChart };
  };
  const spark = { version, windowEnd, gapMs: 1_000, width: 120 };
  const predicted = app.predicted;
  const atLoad = useModelAtLoad(app.deployment_id, app.throughput_rps);
  const knee = atLoad?.knee_rps ?? predicted?.throughput_rps ?? null;
  const ratio = atLoad ? gapRatio(app.joules_per_request, atLoad.joules_per_request) : null;
  const p99 = measuredP99Us(app);
  const basis = latencyBasis(app);
  const partial = partialNote(app.complete, app.nodes_stale);
  return (
    <div
      className={`dash-app-row dash-fresh-${freshness}${hasGraph(app) ? " dash-app-row-graph" : ""}`}
      data-testid={`app-row-${app.application}`}
      data-deployment={app.deployment_id}
    >
      <div className="dash-app-name">
        <strong title={`${app.application}: its versions, deployments and energy over time`}>
          <a href={routeHref({ name: "application", application: app.application })} data-testid="app-link">
            {app.application}
          </a>
        </strong>{" "}
        <span className="muted">v{app.version}</span>
        <span className="muted dash-small">{app.instances} instances</span>
        <span className="dash-partial dash-small" data-testid="app-partial">
          {partial ?? ""}
        </span>
      </div>
      <Figure
        label="Throughput"
        testId="app-throughput"
        {...shownFigure(formatRps(app.throughput_rps), freshness)}
        title="requests/s completed by the primaries of the DAG's entry nodes"
        spark={
          <Sparkline
            series={history?.throughput}
            {...spark}
            {...chartOf("throughput")}
            label="throughput"
            formatTop={formatRps}
          />
        }
        sub={
          knee !== null ? (
            <ModelLine
              label="capacity"
              text={formatRps(knee)}
              title={CAPACITY_TITLE}
              testId="app-capacity"
            />
          ) : null
        }
      />
      <Figure
        label="Avg latency"
        testId="app-avg-latency"
        {...shownFigure(formatLatencyUs(app.latency.avg_us), freshness)}
        title={basis.title}
        badge={
          <span className="dash-basis" title={basis.title} data-testid="app-latency-basis">
            {basis.badge}
          </span>
        }
        spark={
          <Sparkline
            series={history?.avgUs}
            {...spark}
            {...chartOf("avgUs")}
            label="average latency"
            formatTop={formatLatencyUs}
          />
        }
        sub={modelSub(atLoad, predicted, (m) => formatLatencyMs(m.avg_latency_ms), "app-model-avg")}
      />
      {p99 !== null ? (
        <Figure
          label="p99 latency"
          testId="app-p99"
          {...shownFigure(formatLatencyUs(p99), freshness)}
          title="the highest p99 of one 50 ms heartbeat in the last second at its entry instances: an upper bound of the second's p99"
          badge={<span className="dash-basis">measured ≤</span>}
          spark={
            <Sparkline
              series={history?.p99Us}
              {...spark}
              {...chartOf("p99Us")}
              label="p99 latency"
              formatTop={formatLatencyUs}
            />
          }
          sub={modelSub(atLoad, predicted, (m) => formatLatencyMs(m.p99_latency_ms), "app-model-p99")}
        />
      ) : (
        <Figure
          label="p99 latency"
          testId="app-p99"
          text="not measured"
          old={false}
          title="no request answered at its entry in the last second, or its agents do not measure latency"
          sub={modelSub(atLoad, predicted, (m) => formatLatencyMs(m.p99_latency_ms), "app-model-p99")}
        />
      )}
      <Figure
        label="Energy"
        testId="app-joules"
        {...shownFigure(formatJoulesPerRequest(app.joules_per_request), freshness)}
        title="the watts of its nodes, shared among their instances by CPU share, over its throughput"
        badge={app.power.source !== null ? <SourceBadge source={app.power.source} sources={app.power.sources} /> : null}
        spark={
          <>
            <Sparkline
              series={history?.joulesPerRequest}
              {...spark}
              {...chartOf("joulesPerRequest")}
              label="joules per request"
              formatTop={formatJoulesPerRequest}
            />
            {ratio !== null && atLoad?.offered_rps ? (
              <span className="dash-gap" data-testid="app-joules-gap" title={energyGapTitle(ratio, atLoad.offered_rps)}>
                {ratio} the model
              </span>
            ) : null}
          </>
        }
        sub={modelSub(atLoad, predicted, (m) => formatJoulesPerRequest(m.joules_per_request), "app-model-joules")}
      />
      <ApplicationGraph app={app} clusterName={clusterName} instances={instances} clusterNodes={nodes} />
    </div>
  );
});

/** Per application: throughput, latency (with its basis), p99 (measured only if the channel sends it), J/request
 * with its power source, the model's predictions beside them, their history, and its DAG as a live graph. */
export function ApplicationPanel({
  clusterName,
  instances,
  nodes,
  applications,
  freshness,
  note,
  history,
  windowEnd,
  expected,
  onChart,
}: {
  /** The cluster shown: the graph's details link to its placement view. */
  clusterName: string;
  /** The live view's instances and nodes: the graph's details list a DAG node's instances, where and how. */
  instances: readonly LiveInstance[];
  nodes: readonly LiveNode[];
  applications: LiveApplication[];
  freshness: Freshness;
  note: string;
  history: LiveRecorder;
  windowEnd: number;
  /** Deployments on the cluster (GET /clusters/{name}): rows reserved before data comes. */
  expected: number;
  /** Opens a figure's chart from its sparkline. */
  onChart: (chart: ChartRef) => void;
}) {
  const rows = Math.max(1, expected, applications.length);
  return (
    <section className="panel dash-panel" aria-labelledby="dash-apps-title">
      <h2 id="dash-apps-title">
        Applications <span className="dash-count">{applications.length}</span>
        <span className={`dash-freshness dash-stream-${freshness}`} data-testid="apps-freshness">
          {freshness === "old" ? `STALE · ${note}` : note}
        </span>
      </h2>
      <div className="dash-apps" style={{ minHeight: `${rows * ROW_REM}rem` }}>
        {applications.length === 0 ? (
          <p className="muted dash-empty">
            {freshness === "none" ? "Waiting for live data…" : "No deployment is running on this cluster."}
          </p>
        ) : (
          applications.map((app) => {
            const h = history.applications.get(app.deployment_id);
            return (
              <ApplicationRow
                key={app.deployment_id}
                app={app}
                clusterName={clusterName}
                instances={instances}
                nodes={nodes}
                freshness={freshness}
                history={h}
                version={h?.version ?? 0}
                windowEnd={windowEnd}
                onChart={onChart}
              />
            );
          })
        )}
      </div>
    </section>
  );
}
