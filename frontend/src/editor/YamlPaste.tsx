import { useState } from "react";

/** A text box to paste a YAML spec into, and its import button. */
export function YamlPaste({ onImport }: { onImport: (text: string) => void }) {
  const [paste, setPaste] = useState("");
  return (
    <>
      <textarea className="yaml-paste" data-testid="yaml-paste" value={paste} onChange={(e) => setPaste(e.target.value)} placeholder="apiVersion: e3/v1 …" />
      <button type="button" data-testid="yaml-paste-import" onClick={() => onImport(paste)} disabled={!paste.trim()}>
        Import pasted YAML
      </button>
    </>
  );
}
