import type { NodeNow } from "../live/liveState";
import type { ChartRef } from "./chartFigures";
import { nodeFreshness } from "./freshness";
import { NodeCard } from "./NodeCard";
import type { LiveRecorder } from "./recorder";
import type { PlannedNode } from "../hooks/useClusterInfo";

/** Every computing node of the cluster: the live view's once it has come, else the topology's (so the cards
 * hold their places and the first data only fills them in). */
export function NodePanel({
  cluster,
  nodes,
  streamCurrent,
  planned,
  history,
  windowEnd,
  onChart,
}: {
  cluster: string;
  nodes: NodeNow[];
  streamCurrent: boolean;
  planned: PlannedNode[];
  history: LiveRecorder;
  windowEnd: number;
  /** Opens a figure's chart from its sparkline. */
  onChart: (chart: ChartRef) => void;
}) {
  return (
    <section className="panel dash-panel" aria-labelledby="dash-nodes-title">
      <h2 id="dash-nodes-title">
        Computing nodes <span className="dash-count">{nodes.length || planned.length}</span>
        <span className="dash-legend">
          power: <span className="dash-source dash-source-measured">RAPL</span>{" "}
          <span className="dash-source dash-source-measured">IPMI</span> measured ·{" "}
          <span className="dash-source dash-source-estimated">MODEL</span> estimated · sparklines: last 5 min,
          a click opens the chart
        </span>
      </h2>
      <div className="dash-nodes" data-testid="dash-nodes">
        {nodes.length > 0
          ? nodes.map((node) => {
              const { freshness, note } = nodeFreshness(node);
              const h = history.nodes.get(node.id);
              return (
                <NodeCard
                  key={node.id}
                  id={node.id}
                  cluster={cluster}
                  name={node.name}
                  kind={node.kind}
                  state={node.state}
                  stateCurrent={streamCurrent}
                  ts={node.ts}
                  freshness={freshness}
                  note={note}
                  queue={node.queue_len}
                  cpu={node.cpu_util}
                  watts={node.power?.watts ?? null}
                  source={node.power?.source ?? null}
                  history={h}
                  version={h?.version ?? 0}
                  windowEnd={windowEnd}
                  onChart={onChart}
                />
              );
            })
          : planned.map((node) => (
              <NodeCard
                key={node.id}
                id={node.id}
                cluster={cluster}
                name={node.name}
                kind={node.kind}
                state={null}
                stateCurrent={false}
                ts={null}
                freshness="none"
                note="waiting for live data"
                queue={null}
                cpu={null}
                watts={null}
                source={null}
                history={undefined}
                version={0}
                windowEnd={windowEnd}
              />
            ))}
      </div>
    </section>
  );
}
