import type { LiveTotals } from "../live/types";
import { type ChartRef, type ClusterFigure, chartButtonLabel } from "./chartFigures";
import { Figure } from "./Figure";
import { formatRequestsPerJoule, formatRps, formatWatts } from "./format";
import { type Freshness, partialNote, shownFigure } from "./freshness";
import type { LiveRecorder } from "./recorder";
import { SourceBadge } from "./SourceBadge";
import { Sparkline } from "./Sparkline";

/** Cluster totals: watts (with the mix of sources), requests per joule, throughput, nodes reporting; each
 * sparkline opens its figure's chart. */
export function ClusterPanel({
  clusterName,
  onChart,
  totals,
  freshness,
  note,
  history,
  windowEnd,
  receivedAt,
}: {
  clusterName: string;
  /** Opens a figure's chart from its sparkline. */
  onChart: (chart: ChartRef) => void;
  totals: LiveTotals | null;
  freshness: Freshness;
  note: string;
  history: LiveRecorder;
  windowEnd: number;
  receivedAt: number | null;
}) {
  const h = history.totals;
  const chartOf = (figure: ClusterFigure) => {
    const chart: ChartRef = { scope: "cluster", figure };
    return { chart, chartLabel: chartButtonLabel(chart, clusterName), onChart };
  };
  const spark = { version: h.version, windowEnd, gapMs: 1_000, width: 120 };
  const f = totals ? freshness : "none";
  const partial = totals ? partialNote(totals.complete, totals.nodes_stale) : null;
  return (
    <section
      className="panel dash-panel dash-cluster"
      aria-labelledby="dash-cluster-title"
      data-testid="dash-cluster"
      data-received-at={receivedAt ?? ""}
      data-freshness={f}
    >
      <h2 id="dash-cluster-title">
        Cluster
        <span className={`dash-freshness dash-stream-${f}`} data-testid="cluster-freshness">{f === "old" ? `STALE · ${note}` : note}</span>
      </h2>
      <div className="dash-cluster-figures">
        <Figure
          label="Total power"
          testId="cluster-watts"
          {...shownFigure(formatWatts(totals?.power.watts), f)}
          title="the watts of the reporting nodes"
          badge={totals?.power.source ? <SourceBadge source={totals.power.source} sources={totals.power.sources} /> : null}
          spark={
            <Sparkline
              series={h.watts}
              {...spark}
              {...chartOf("watts")}
              minTop={10}
              label="total power"
              formatTop={formatWatts}
            />
          }
        />
        <Figure
          label="Efficiency"
          testId="cluster-rpj"
          {...shownFigure(formatRequestsPerJoule(totals?.requests_per_joule), f)}
          title="the applications' throughput over the reporting nodes' watts"
          badge={totals?.power.source ? <SourceBadge source={totals.power.source} sources={totals.power.sources} /> : null}
          spark={
            <Sparkline
              series={h.requestsPerJoule}
              {...spark}
              {...chartOf("requestsPerJoule")}
              label="requests per joule"
              formatTop={formatRequestsPerJoule}
            />
          }
        />
        <Figure
          label="Throughput"
          testId="cluster-throughput"
          {...shownFigure(formatRps(totals?.throughput_rps), f)}
          spark={
            <Sparkline
              series={h.throughput}
              {...spark}
              {...chartOf("throughput")}
              label="throughput"
              formatTop={formatRps}
            />
          }
        />
        <Figure
          label="Nodes reporting"
          testId="cluster-reporting"
          {...shownFigure(totals ? `${totals.nodes_reporting} / ${totals.nodes}` : "—", f)}
          sub={<span className="dash-partial">{partial ?? ""}</span>}
        />
      </div>
    </section>
  );
}
