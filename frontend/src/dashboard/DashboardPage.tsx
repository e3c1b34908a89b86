import "./dashboard.css";

import { useState } from "react";

import { ApplicationPanel } from "./ApplicationPanel";
import { type ChartRef, chartKey } from "./chartFigures";
import { type ChartRangeId, DEFAULT_CHART_RANGE } from "./chartRange";
import { ClusterPanel } from "./ClusterPanel";
import { CostPanel } from "./CostPanel";
import { FigureChartPanel } from "./FigureChartPanel";
import { streamFreshness } from "./freshness";
import { NodePanel } from "./NodePanel";
import { StatusLine } from "./StatusLine";
import { useClusterInfo } from "../hooks/useClusterInfo";
import { useCostControls } from "./useCostControls";
import { useCostEfficiency } from "./useCostEfficiency";
import { useLiveHistory } from "./useLiveHistory";
import { useServerHistory } from "./useServerHistory";
import { useSession } from "../hooks/useSession";
import { routeHref } from "../lib/route";
import { useLive } from "../live/useLive";

/** A cluster's live dashboard (issue 8): nodes, applications and cluster totals from the live channel
 * (docs/live.md), the cost efficiency from the API (docs/energy.md); nothing old is shown as current. The page re-renders on every message and every
 * 250 ms tick; its cards and rows are memoised on primitive props, so only what changed is redrawn. */
export function DashboardPage({ clusterName }: { clusterName: string }) {
  const session = useSession();
  const live = useLive(clusterName, session.token);
  const history = useLiveHistory(live.view);
  const serverHistory = useServerHistory(clusterName, history); // the last minutes, so a reload starts with them
  const info = useClusterInfo(clusterName);
  const costControls = useCostControls();
  const cost = useCostEfficiency(clusterName, costControls.controls);
  // One figure's chart open at a time, from its sparkline; the range is kept for the next one opened.
  const [chart, setChart] = useState<ChartRef | null>(null);
  const [chartRange, setChartRange] = useState<ChartRangeId>(DEFAULT_CHART_RANGE);

  const now = Date.now();
  // Sparkline windows move on whole seconds: an idle card is then redrawn once a second, not every render.
  const windowEnd = Math.ceil(now / 1000) * 1000;
  const stream = streamFreshness(live.view.current, history.lastMessageAt, now);

  return (
    <div className="dash-page" data-testid="dashboard">
      <div className="dash-head">
        <h1>
          {clusterName} <span className="muted">· live dashboard</span>
        </h1>
        <a href={routeHref({ name: "cluster", cluster: clusterName })} data-testid="dash-cluster-link">
          Placement view
        </a>
      </div>
      <StatusLine live={live} lastMessageAt={history.lastMessageAt} now={now} />
      {serverHistory.error && (
        <p className="muted" role="status" data-testid="history-unavailable">
          The last minutes could not be read from the server ({serverHistory.error}): the sparklines start with the live
          messages.
        </p>
      )}
      {info.error && (
        <p className="error" role="alert">
          Could not load the cluster: {info.error}
        </p>
      )}
      <div className="dash-top">
        <ClusterPanel
          clusterName={clusterName}
          onChart={setChart}
          totals={live.view.totals}
          freshness={stream.freshness}
          note={stream.note}
          history={history}
          windowEnd={windowEnd}
          receivedAt={history.lastMessageAt}
        />
        <CostPanel cost={cost} controls={costControls} />
      </div>
      {/* Below the fixed-height panels only once the topology is known: the node cards then take their places
          at once, and nothing under them moves when they fill in. */}
      {info.loading && live.view.nodes.length === 0 ? (
        <p className="muted">Loading the cluster…</p>
      ) : (
        <>
          <NodePanel
            cluster={clusterName}
            nodes={live.view.nodes}
            streamCurrent={live.view.current}
            planned={info.nodes} history={history} windowEnd={windowEnd} onChart={setChart} />
          <ApplicationPanel
            clusterName={clusterName}
            instances={live.view.instances}
            nodes={live.view.nodes}
            applications={live.view.applications}
            freshness={stream.freshness}
            note={stream.note}
            history={history}
            windowEnd={windowEnd}
            expected={info.deployments}
            onChart={setChart}
          />
        </>
      )}
      {chart && (
        <FigureChartPanel
          key={chartKey(chart)}
          chart={chart}
          clusterName={clusterName}
          view={live.view}
          recorder={history}
          windowEnd={windowEnd}
          range={chartRange}
          onRange={setChartRange}
          onClose={() => setChart(null)}
        />
      )}
    </div>
  );
}
