import type { SaveState } from "./saveState";

interface EditorNoticesProps {
  loadError: string | null;
  importError: string | null;
  save: SaveState;
  /** Opens the deploy page for a saved application (else the link's own href does). */
  onDeploy?: (applicationName: string) => void;
}

/** What went wrong loading, importing or saving; or what was saved, with a link to deploy it. */
export function EditorNotices({ loadError, importError, save, onDeploy }: EditorNoticesProps) {
  return (
    <>
      {loadError && <p className="error">{loadError}</p>}
      {importError && <p className="error">{importError}</p>}
      {save.error && <p className="error save-status">Save failed: {save.error}</p>}
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
