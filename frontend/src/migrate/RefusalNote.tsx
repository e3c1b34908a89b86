import type { Ref } from "react";

export interface RefusalNoteProps {
  text: string;
  onClose: () => void;
  /** The page positions it next to the instance's mark as the drawing pans and zooms. */
  ref: Ref<HTMLDivElement>;
}

/** The API's reason for refusing a migration, next to the instance that stayed where it was. */
export function RefusalNote({ text, onClose, ref }: RefusalNoteProps) {
  return (
    <div ref={ref} className="refusal-note" role="alert" data-testid="refusal-note">
      <span>{text}</span>
      <button type="button" onClick={onClose} aria-label="Dismiss">
        ✕
      </button>
    </div>
  );
}
