import { ConfirmDialog } from "../components/ConfirmDialog";
import { deleteVersion } from "./applicationApi";

interface Props {
  name: string;
  version: number;
  latest: boolean;
  onDeleted: () => void;
  onCancel: () => void;
}

/** Asks before deleting one version; the API refuses the latest and a version a deployment runs. */
export function DeleteVersionDialog({ name, version, latest, onDeleted, onCancel }: Props) {
  return (
    <ConfirmDialog
      title={`Delete version ${version} of ${name}?`}
      confirmLabel="Delete version"
      onConfirm={() => deleteVersion(name, version)}
      onDone={onDeleted}
      onCancel={onCancel}
    >
      <p data-testid="confirm-what">
        This deletes version <strong>{version}</strong> of <strong>{name}</strong> (its DAG spec); its number is not reused.
      </p>
      {latest && (
        <p className="warning">
          It is the latest version: E3 keeps the latest. Save a new version first, or delete the whole application.
        </p>
      )}
    </ConfirmDialog>
  );
}
