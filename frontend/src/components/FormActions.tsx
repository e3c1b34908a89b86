import type { Refusal } from "../lib/errors";
import { RefusalMessage } from "./RefusalMessage";

interface Props {
  /** The API's refusal of the last send, shown above the buttons. */
  refusal: Refusal<string> | null;
  refusalTestId: string;
  /** "Create cluster"; while busy, "Creating…". */
  submitLabel: string;
  submitTestId: string;
  busy: boolean;
  /** Nothing to send yet. */
  disabled?: boolean;
  onCancel: () => void;
}

/** A create form's end: what the API refused, if it did, then create and cancel. */
export function FormActions({ refusal, refusalTestId, submitLabel, submitTestId, busy, disabled = false, onCancel }: Props) {
  return (
    <>
      <RefusalMessage refusal={refusal} testId={refusalTestId} />
      <div className="form-actions">
        <button type="submit" data-testid={submitTestId} disabled={busy || disabled}>
          {busy ? "Creating…" : submitLabel}
        </button>
        <button type="button" className="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </>
  );
}
