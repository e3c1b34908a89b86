import { ConfirmDialog } from "../components/ConfirmDialog";
import { deleteApplication } from "./applicationApi";
import { useVersionNumbers } from "./useVersionNumbers";
import { describeVersions } from "./versionWords";

interface Props {
  name: string;
  onDeleted: () => void;
  onCancel: () => void;
}

/** Asks before deleting an application, naming its versions; the API refuses while deployments use it. */
export function DeleteApplicationDialog({ name, onDeleted, onCancel }: Props) {
  const versions = useVersionNumbers(name);
  let what: string;
  if (versions.loading) what = "all its versions";
  else if (versions.error !== null) what = `all its versions (they could not be listed: ${versions.error})`;
  else what = `its ${describeVersions(versions.numbers, versions.total)}`;
  return (
    <ConfirmDialog
      title={`Delete application ${name}?`}
      confirmLabel="Delete application"
      onConfirm={() => deleteApplication(name)}
      onDone={onDeleted}
      onCancel={onCancel}
    >
      <p data-testid="confirm-what">
        This deletes the application <strong>{name}</strong> and {what}. Deployments of it must be undeployed first.
      </p>
    </ConfirmDialog>
  );
}
