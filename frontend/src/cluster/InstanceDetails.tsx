import { type ReactNode, memo } from "react";
import { InstanceStateBadge } from "../components/DeploymentStatus";
import { formatInstanceError, instanceStateMeaning } from "../lib/deploymentStatus";
import { routeHref } from "../lib/route";
import { type InstanceRelations, type Placement, roleOf } from "./relations";

const MAX_PEERS = 16;

export interface InstanceDetailsProps {
  relations: InstanceRelations;
  deploymentId: string;
  color: string;
  onSelect: (instance: number) => void;
  onClose: () => void;
  /** Shown under the instance's facts (the migration target picker). */
  children?: ReactNode;
}

function where(p: Placement): string {
  return `${p.node} (${p.nodeKind}) · ${p.server} · ${p.rack}`;
}

/** The pinned instance: where it sits, its DAG node, and its DAG edges with where the peers sit. */
export const InstanceDetails = memo(function InstanceDetails({ relations: r, deploymentId, color, onSelect, onClose, children }: InstanceDetailsProps) {
  const s = r.self;
  return (
    <section className="panel" data-testid="instance-details" aria-label="Instance details">
      <div className="panel-head">
        <h3>
          <span className="swatch" style={{ background: s.replica === 0 ? color : "transparent", border: `2px solid ${color}` }} />{" "}
          {s.dagNode} · shard {s.shard} · {roleOf(s.replica)}
        </h3>
        <button type="button" onClick={onClose} aria-label="Unpin">
          ✕
        </button>
      </div>
      <dl className="kv">
        <dt>Application</dt>
        <dd>{s.application}</dd>
        <dt>Deployment</dt>
        <dd>
          <a href={routeHref({ name: "deployment", deployment: deploymentId })} title="The deployment's page: its instances, states and events">
            <code>{deploymentId.slice(0, 8)}</code>
          </a>
        </dd>
        {s.state !== null && (
          <>
            <dt>State</dt>
            <dd>
              <InstanceStateBadge state={s.state} error={s.error} /> <span className="muted">{instanceStateMeaning(s.state)}</span>
            </dd>
          </>
        )}
        {s.error !== null && (
          <>
            <dt>Refused</dt>
            <dd className="error" data-testid="instance-refusal">
              {formatInstanceError(s.error)}
            </dd>
          </>
        )}
        <dt>DAG node</dt>
        <dd>{s.dagNode}</dd>
        <dt>Service</dt>
        <dd>{s.service}</dd>
        <dt>Shard</dt>
        <dd>{s.shard}</dd>
        <dt>Role</dt>
        <dd>{roleOf(s.replica)}</dd>
        <dt>Node</dt>
        <dd>
          {s.node} ({s.nodeKind})
        </dd>
        <dt>Server</dt>
        <dd>{s.server}</dd>
        <dt>Rack</dt>
        <dd>{s.rack}</dd>
        <dt>Instance</dt>
        <dd>
          <code>{s.id}</code>
        </dd>
      </dl>
      {children}
      <h4>DAG node {s.dagNode}</h4>
      <p className="muted" style={{ margin: 0, fontSize: "0.85rem" }}>
        {r.dagNodeShards} shard{r.dagNodeShards === 1 ? "" : "s"} × {r.dagNodeReplicas} replica{r.dagNodeReplicas === 1 ? "" : "s"} ={" "}
        {r.dagNodeInstances} instances
      </p>
      <h4>Edges ({r.peers.length})</h4>
      {r.peers.length === 0 && <p className="muted">No edges into or out of this DAG node.</p>}
      {r.peers.map((g) => (
        <div key={`${g.direction}:${g.dagNode}`}>
          <div style={{ fontSize: "0.85rem", fontWeight: 600 }}>
            {g.direction === "in" ? `← from ${g.dagNode}` : `→ to ${g.dagNode}`} <span className="muted">({g.service})</span>
          </div>
          <ul className="peer-list">
            {g.instances.slice(0, MAX_PEERS).map((p) => (
              <li key={p.instance}>
                <button type="button" onClick={() => onSelect(p.instance)} title="Pin this instance">
                  shard {p.shard} {roleOf(p.replica)}
                </button>{" "}
                <span className="muted">{where(p)}</span>
              </li>
            ))}
            {g.instances.length > MAX_PEERS && <li className="muted">+{g.instances.length - MAX_PEERS} more (all highlighted on the drawing)</li>}
          </ul>
        </div>
      ))}
    </section>
  );
});
