import { routeHref } from "../lib/route";
import { useClusterInfo } from "../hooks/useClusterInfo";
import { EnergyPanel } from "./EnergyPanel";

/** One computing node's energy over time (GET /nodes/{node_id}/energy); its name and server from the topology. */
export function NodeEnergyPage({ clusterName, nodeId }: { clusterName: string; nodeId: string }) {
  const info = useClusterInfo(clusterName);
  const node = info.nodes.find((n) => n.id === nodeId);
  const name = node?.name ?? nodeId;
  return (
    <div className="energy-page" data-testid="node-energy-page">
      <p className="breadcrumb">
        <a href={routeHref({ name: "clusters" })}>Clusters</a> /{" "}
        <a href={routeHref({ name: "cluster", cluster: clusterName })}>{clusterName}</a> /{" "}
        <a href={routeHref({ name: "dashboard", cluster: clusterName })}>dashboard</a> /
      </p>
      <h1>
        Node {name}{" "}
        {node ? (
          <span className="muted">
            · {node.kind === "smartnic" ? "SmartNIC" : "host"} of {node.server}, rack {node.rack}
          </span>
        ) : null}
      </h1>
      {info.error && (
        <p className="error" role="alert">
          Could not load the cluster: {info.error}
        </p>
      )}
      <EnergyPanel scope={{ kind: "node", nodeId }} title={`Energy of node ${name}`} />
    </div>
  );
}
