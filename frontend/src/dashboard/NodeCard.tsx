import { memo } from "react";

import { routeHref } from "../lib/route";
import { type ChartRef, type NodeFigure, chartButtonLabel } from "./chartFigures";
import { Figure } from "./Figure";
import { formatPercent, formatQueue, formatWatts } from "./format";
import { type Freshness, shownFigure, stateTone } from "./freshness";
import type { NodeHistory } from "./recorder";
import { SourceBadge } from "./SourceBadge";
import { Sparkline } from "./Sparkline";

export interface NodeCardProps {
  id: string;
  /** The cluster, for the link to the node's energy over time. */
  cluster: string;
  name: string;
  kind: string;
  state: "up" | "suspect" | "down" | null;
  /** Whether the membership state is current: it is whenever the stream is (state changes are pushed even for
   * a node that sends no heartbeat), and old with everything else when the stream is not. */
  stateCurrent: boolean;
  /** The heartbeat's time (ISO), rendered as data-updated-at for heartbeat → pixel measurements. */
  ts: string | null;
  freshness: Freshness;
  note: string;
  queue: number | null;
  cpu: number | null;
  watts: number | null;
  source: string | null;
  history: NodeHistory | undefined;
  version: number;
  windowEnd: number;
  /** Opens a figure's chart (its sparkline is then a button); stable across renders. */
  onChart?: (chart: ChartRef) => void;
}

const pct = (v: number) => formatPercent(v);

/** One computing node: a fixed-size card, redrawn only when one of its primitive props changes. */
export const NodeCard = memo(function NodeCard(props: NodeCardProps) {
  const { id, cluster, name, kind, state, stateCurrent, ts, freshness, note, history, version, windowEnd } = props;
  const queue = shownFigure(formatQueue(props.queue), freshness);
  const cpu = shownFigure(formatPercent(props.cpu), freshness);
  const watts = shownFigure(formatWatts(props.watts), freshness);
  const chartOf = (figure: NodeFigure) => {
    const chart: ChartRef = { scope: "node", id, name, figure };
    return { chart, chartLabel: chartButtonLabel(chart, cluster), onChart: props.onChart };
  };
  const spark = { version, windowEnd, gapMs: 1_000 };
  return (
    <article
      className={`dash-node dash-fresh-${freshness}`}
      data-testid={`node-card-${name}`}
      data-node-id={id}
      data-updated-at={ts ?? ""}
      data-freshness={freshness}
      aria-label={`${kind} node ${name}`}
    >
      <header className="dash-node-head">
        <a
          className="dash-node-name"
          title={`${name}: energy over time`}
          href={routeHref({ name: "node", cluster, node: id })}
          data-testid="node-energy-link"
        >
          {name}
        </a>
        <span className="dash-kind">{kind === "smartnic" ? "NIC" : "host"}</span>
        <span
          className={`dash-state dash-tone-${state && stateCurrent ? stateTone(state) : "none"}${state && !stateCurrent ? " dash-old" : ""}`}
          data-testid="node-state"
          data-old={state && !stateCurrent ? "true" : "false"}
          title={stateCurrent ? "the controller's membership state" : "the last known membership state, not current"}
        >
          {state ?? "—"}
        </span>
      </header>
      <Figure
        label="Queue"
        testId="node-queue"
        {...queue}
        title="traffic-manager ingress queue depth"
        spark={
          <Sparkline
            series={history?.queue}
            {...spark}
            {...chartOf("queue")}
            reduce="max"
            minTop={10}
            label="queue depth"
            formatTop={formatQueue}
          />
        }
      />
      <Figure
        label="CPU"
        testId="node-cpu"
        {...cpu}
        spark={
          <Sparkline
            series={history?.cpu}
            {...spark}
            {...chartOf("cpu")}
            minTop={1}
            label="CPU utilisation"
            formatTop={pct}
          />
        }
      />
      <Figure
        label="Power"
        testId="node-watts"
        {...watts}
        badge={props.source !== null && freshness !== "none" ? <SourceBadge source={props.source} /> : null}
        spark={
          <Sparkline
            series={history?.watts}
            {...spark}
            {...chartOf("watts")}
            minTop={10}
            label="power"
            formatTop={formatWatts}
          />
        }
      />
      <footer className="dash-node-note" data-testid="node-note">
        {freshness === "old" ? <strong>STALE · {note}</strong> : note}
      </footer>
    </article>
  );
});
