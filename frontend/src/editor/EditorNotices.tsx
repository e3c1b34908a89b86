import type { SaveFailure, SaveState } from "./saveState";

interface EditorNoticesProps {
  loadError: string | null;
  importError: string | null;
  save: SaveState;
  /** The last save's failure while the document is still the one it refused (else null). */
  failure: SaveFailure | null;
  /** Opens the deploy page for a saved application (else the link's own href does). */
  onDeploy?: (applicationName: string) => void;
}

/** What went wrong loading, importing or saving; or what was saved, with a link to deploy it. */
export function EditorNotices({ loadError, importError, save, failure, onDeploy }: EditorNoticesProps) {
  return (
    <>
      {loadError && <p className="error">{loadError}</p>}
      {importError && <p className="error">{importError}</p>}
      {failure && (
        <p className="error save-status" data-testid="save-failed">
          Save failed:{" "}
          {failure.errors.length > 0
            ? `the server found ${failure.errors.length} problem(s), listed under Application and marked on the canvas.`
            : failure.message}
        </p>
      )}
      {save.saved && (
        <p className="save-status">
          Saved {save.saved.name} version {save.saved.version}.{" "}
          <a
            href={`#/deploy/${save.saved.name}`}
            data-testid="deploy-link"
            onClick={(e) => {
              if (onDeploy) {
                e.preventDefault();
                onDeploy(save.saved!.name);
              }
            }}
          >
            Deploy {save.saved.name}…
          </a>
        </p>
      )}
    </>
  );
}
