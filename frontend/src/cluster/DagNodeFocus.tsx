import { formatTime } from "../lib/format";
import type { TimelineEntry } from "../timeline/entries";
import { roleOf } from "./relations";

export interface FocusedInstance {
  index: number;
  shard: number;
  replica: number;
  node: string;
  nodeState: string;
  state: string;
}

export interface DagNodeFocusProps {
  application: string;
  dagNode: string;
  instances: FocusedInstance[];
  events: TimelineEntry[];
  onPin: (index: number) => void;
  onClose: () => void;
}

/** A DAG node picked on the dashboard's graph: its instances (highlighted on the drawing) with their states and
 * nodes, and the recent events about them. */
export function DagNodeFocus({ application, dagNode, instances, events, onPin, onClose }: DagNodeFocusProps) {
  return (
    <section className="panel dag-focus" data-testid="dag-focus" aria-label={`DAG node ${dagNode} of ${application}`}>
      <div className="dag-focus-head">
        <h3>DAG node {dagNode} · {application}</h3>
        <button type="button" onClick={onClose} aria-label="Close the DAG node's panel">×</button>
      </div>
      {instances.length === 0 ? (
        <p className="muted">None of its instances is placed in this cluster (now, or at the moment replayed).</p>
      ) : (
        <table className="dag-focus-instances">
          <thead>
            <tr><th scope="col">shard</th><th scope="col">role</th><th scope="col">node</th><th scope="col">state</th></tr>
          </thead>
          <tbody>
            {instances.map((i) => (
              <tr key={i.index} data-testid="dag-focus-instance" data-state={i.state}>
                <td>{i.shard}</td>
                <td>{roleOf(i.replica)}</td>
                <td>
                  <button type="button" className="link" onClick={() => onPin(i.index)}>{i.node}</button>
                  {i.nodeState !== "up" && <span className="dag-focus-node-state"> ({i.nodeState})</span>}
                </td>
                <td>{i.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Recent events</h4>
      {events.length === 0 ? (
        <p className="muted">None among the timeline's events.</p>
      ) : (
        <ul className="dag-focus-events" data-testid="dag-focus-events">
          {events.map((e) => (
            <li key={e.id} className={`tone-${e.tone}`}><time dateTime={e.ts}>{formatTime(e.ts)}</time> {e.text}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
