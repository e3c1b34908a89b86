import type { ClusterRow } from "../api/client";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { countOf } from "../lib/format";
import { deleteCluster } from "./clusterApi";
import { describeSize, sizeOfCluster } from "./clusterSize";

interface Props {
  cluster: ClusterRow;
  onDeleted: () => void;
  onCancel: () => void;
}

/** Asks before deleting a cluster, naming what goes; the API refuses while deployments run on it. */
export function DeleteClusterDialog({ cluster, onDeleted, onCancel }: Props) {
  return (
    <ConfirmDialog
      title={`Delete cluster ${cluster.name}?`}
      confirmLabel="Delete cluster"
      onConfirm={() => deleteCluster(cluster.name)}
      onDone={onDeleted}
      onCancel={onCancel}
    >
      <p data-testid="confirm-what">
        This deletes the cluster <strong>{cluster.name}</strong> and its {describeSize(sizeOfCluster(cluster))}.
      </p>
      {cluster.deployments > 0 && (
        <p className="warning">
          {countOf(cluster.deployments, "deployment")} {cluster.deployments === 1 ? "runs" : "run"} on it: E3 refuses to
          delete a cluster in use; undeploy first.
        </p>
      )}
    </ConfirmDialog>
  );
}
