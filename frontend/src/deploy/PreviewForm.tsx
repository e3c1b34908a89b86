import type { ClusterOption } from "./useDeployClusters";
import type { FormField } from "./deployJob";
import { DEFAULT_ILP_TIME_LIMIT_S, MAX_ILP_TIME_LIMIT_S } from "./deployPreview";
import { Elapsed } from "./Elapsed";
import { FieldMessages } from "./FieldMessages";

export interface PreviewFormProps {
  clusters: readonly ClusterOption[];
  clustersLoading: boolean;
  clustersError: string | null;
  clustersTruncated: boolean;
  cluster: string;
  offeredRps: string;
  ilpTimeLimitS: string;
  onCluster: (name: string) => void;
  onOfferedRps: (value: string) => void;
  onIlpTimeLimitS: (value: string) => void;
  onPreview: () => void;
  onCancel: () => void;
  running: boolean;
  startedAt: number | null;
  ilpCapS: number | null;
  messages: Partial<Record<FormField, string[]>>;
}

function describeCluster(c: ClusterOption): string {
  const types = Object.entries(c.serverTypes)
    .map(([t, n]) => `${n} × ${t}`)
    .join(", ");
  const agents = c.agentNodes > 0 ? `${c.agentNodes} nodes run by agents` : "no agents: nothing would execute";
  return `${c.name} — ${c.servers} servers${types ? ` (${types})` : ""} · ${agents}`;
}

/** Cluster, offered load and ILP cap, and the preview button (a spinner and cancel while it runs). */
export function PreviewForm(props: PreviewFormProps) {
  const { messages } = props;
  return (
    <form
      className="deploy-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!props.running) props.onPreview();
      }}
    >
      <label className="deploy-field">
        <span>Cluster</span>
        <select
          data-testid="cluster-select"
          value={props.cluster}
          onChange={(e) => props.onCluster(e.target.value)}
          disabled={props.clustersLoading && props.clusters.length === 0}
          aria-invalid={messages.cluster !== undefined}
        >
          {props.clusters.length === 0 && (
            <option value="">{props.clustersLoading ? "loading clusters…" : "no clusters"}</option>
          )}
          {props.clusters.map((c) => (
            <option key={c.name} value={c.name}>
              {describeCluster(c)}
            </option>
          ))}
        </select>
        {props.clustersError !== null && <FieldMessages messages={[`Clusters: ${props.clustersError}`]} />}
        {props.clustersTruncated && <span className="hint">Only the first clusters are listed.</span>}
        <FieldMessages messages={messages.cluster} testId="cluster-error" />
      </label>

      <label className="deploy-field">
        <span>Offered load (requests/s)</span>
        <input
          type="number"
          min="0"
          step="any"
          inputMode="decimal"
          placeholder="at the knee"
          value={props.offeredRps}
          onChange={(e) => props.onOfferedRps(e.target.value)}
          data-testid="offered-rps"
          aria-invalid={messages.offered_rps !== undefined}
        />
        <span className="hint">Empty: each placement is evaluated at its knee.</span>
        <FieldMessages messages={messages.offered_rps} />
      </label>

      <label className="deploy-field">
        <span>ILP time cap (s)</span>
        <input
          type="number"
          min="0"
          max={MAX_ILP_TIME_LIMIT_S}
          step="any"
          placeholder={String(DEFAULT_ILP_TIME_LIMIT_S)}
          value={props.ilpTimeLimitS}
          onChange={(e) => props.onIlpTimeLimitS(e.target.value)}
          data-testid="ilp-time-limit"
          aria-invalid={messages.ilp_time_limit_s !== undefined}
        />
        <FieldMessages messages={messages.ilp_time_limit_s} />
      </label>

      <div className="deploy-actions">
        <button type="submit" data-testid="preview-button" disabled={props.running || props.cluster === ""}>
          Preview
        </button>
        {props.running && (
          <>
            <span className="spinner" role="status" aria-label="preview running" data-testid="preview-spinner" />
            <span className="hint">
              Running HCM, annealing, ILP and first fit…{" "}
              {props.startedAt !== null && <Elapsed since={props.startedAt} />}
              {props.ilpCapS !== null && ` (the ILP may take up to ${props.ilpCapS} s)`}
            </span>
            <button type="button" onClick={props.onCancel} data-testid="preview-cancel">
              Cancel
            </button>
          </>
        )}
      </div>
      <FieldMessages messages={messages.algorithm} />
      <FieldMessages messages={messages.application} />
      <FieldMessages messages={messages.other} testId="preview-error" />
    </form>
  );
}
