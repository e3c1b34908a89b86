import type { FormField } from "./deployJob";
import { DEPLOY_ALGORITHMS, algorithmLabel } from "./deployPreview";
import { FieldMessages } from "./FieldMessages";

export interface DeployFormProps {
  algorithm: string;
  best: string | null;
  onAlgorithm: (name: string) => void;
  onDeploy: () => void;
  disabled: boolean;
  submitting: boolean;
  cluster: string;
  /** The API's refusal of the deploy; its cluster messages are shown by the cluster select. */
  messages: Partial<Record<FormField, string[]>>;
}

/** The algorithm to deploy with (preselected to the best previewed one) and the deploy button. */
export function DeployForm(props: DeployFormProps) {
  const { messages } = props;
  return (
    <form
      className="deploy-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!props.disabled && !props.submitting) props.onDeploy();
      }}
    >
      <label className="deploy-field">
        <span>Algorithm</span>
        <select
          data-testid="algorithm-select"
          value={props.algorithm}
          onChange={(e) => props.onAlgorithm(e.target.value)}
          aria-invalid={messages.algorithm !== undefined}
        >
          {DEPLOY_ALGORITHMS.map((a) => (
            <option key={a} value={a}>
              {algorithmLabel(a)}
              {a === props.best ? " (best predicted req/J)" : ""}
            </option>
          ))}
        </select>
        <FieldMessages messages={messages.algorithm} testId="algorithm-error" />
      </label>
      <div className="deploy-actions">
        <button type="submit" data-testid="deploy-button" disabled={props.disabled || props.submitting || props.cluster === ""}>
          {props.submitting ? "Deploying…" : `Deploy on ${props.cluster || "…"}`}
        </button>
      </div>
      <FieldMessages messages={messages.application} />
      <FieldMessages messages={[...(messages.offered_rps ?? []), ...(messages.ilp_time_limit_s ?? []), ...(messages.other ?? [])]} testId="deploy-error" />
    </form>
  );
}
