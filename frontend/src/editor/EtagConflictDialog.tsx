interface EtagConflictDialogProps {
  name: string;
  message: string;
  onReload: () => void;
  onOverwrite: () => void;
  onCancel: () => void;
}

/** Someone saved the application since it was loaded (HTTP 412): take theirs or overwrite it. */
export function EtagConflictDialog({ name, message, onReload, onOverwrite, onCancel }: EtagConflictDialogProps) {
  return (
    <div className="modal-backdrop">
      <div className="modal" role="dialog" aria-modal="true" data-testid="etag-conflict">
        <h3>{name} changed since you loaded it</h3>
        <p>{message}</p>
        <p>Reload discards your changes and loads the latest version; overwrite saves yours over it.</p>
        <div className="modal-actions">
          <button type="button" data-testid="reload" onClick={onReload}>
            Reload latest
          </button>
          <button type="button" className="danger" data-testid="overwrite" onClick={onOverwrite}>
            Overwrite
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
