import type { DeploymentRow } from "../api/client";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { countOf, formatInstanceStates, shortId } from "../lib/format";
import { undeploy } from "./deploymentApi";

interface Props {
  deployment: DeploymentRow;
  onDone: () => void;
  onCancel: () => void;
}

/** Asks before undeploying, naming what goes; the API's refusal (a migration under way...) is shown in place. */
export function UndeployDialog({ deployment: d, onDone, onCancel }: Props) {
  const states = formatInstanceStates(d.instance_states);
  return (
    <ConfirmDialog
      title={`Undeploy ${d.application} v${d.version}?`}
      confirmLabel="Undeploy"
      onConfirm={() => undeploy(d.id)}
      onDone={onDone}
      onCancel={onCancel}
      testId="undeploy-dialog"
    >
      <p data-testid="confirm-what">
        This removes deployment <code>{shortId(d.id)}</code> of <strong>{d.application}</strong> v{d.version} from
        cluster <strong>{d.cluster}</strong>: its {countOf(d.instances, "instance")}
        {states !== "" && ` (${states})`} stop on their agents and free what they reserved. The application and its
        versions stay.
      </p>
    </ConfirmDialog>
  );
}
