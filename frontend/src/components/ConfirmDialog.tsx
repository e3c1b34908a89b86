import { type ReactNode, useEffect, useRef } from "react";
import { useFormSubmit } from "../hooks/useFormSubmit";
import { noField } from "../lib/errors";
import { RefusalMessage } from "./RefusalMessage";

interface Props {
  title: string;
  /** What goes, named in full (the cluster and its servers, the application and its versions...). */
  children: ReactNode;
  /** The button's words, e.g. "Delete cluster". */
  confirmLabel: string;
  /** Does it; a throw (the API refusing) is shown in the dialog, which stays open. */
  onConfirm: () => Promise<void>;
  /** After `onConfirm` succeeded. */
  onDone: () => void;
  onCancel: () => void;
  testId?: string;
}

/**
 * Asks before a destructive action and does it: the dialog names what goes, stays open while the
 * request runs, and shows the API's refusal (e.g. "has 2 deployment(s); delete them first") in place.
 * Cancel has the focus, so Enter does not destroy anything by accident; Escape cancels.
 */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onDone, onCancel, testId = "confirm-dialog" }: Props) {
  const { busy, refusal, send } = useFormSubmit();
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => cancelRef.current?.focus(), []);

  const cancel = () => {
    if (!busy) onCancel();
  };

  return (
    <div className="dialog-backdrop" onKeyDown={(event) => event.key === "Escape" && cancel()}>
      <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby={`${testId}-title`} data-testid={testId}>
        <h3 id={`${testId}-title`}>{title}</h3>
        <div className="dialog-body">{children}</div>
        <RefusalMessage refusal={refusal} testId="confirm-refusal" />
        <div className="dialog-actions">
          <button type="button" className="destructive" data-testid="confirm-button" onClick={() => send(onConfirm, noField, onDone)} disabled={busy}>
            {busy ? "Working…" : confirmLabel}
          </button>
          <button type="button" className="secondary" data-testid="confirm-cancel" ref={cancelRef} onClick={cancel} disabled={busy}>
            {refusal === null ? "Cancel" : "Close"}
          </button>
        </div>
      </div>
    </div>
  );
}
