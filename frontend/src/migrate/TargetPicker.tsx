import { useMemo, useState } from "react";
import { judgeTarget } from "../viz/dropTarget";

export interface TargetPickerProps {
  /** The layout's nodes (name, kind, state, cores). */
  nodes: readonly { name: string; kind: string; state?: string; cores: number; used_cores: number }[];
  source: number;
  /** Null when allowed; else why not (shown, and the controls are disabled). */
  disabledReason: string | null;
  busy: boolean;
  onPick: (target: number) => void;
}

/** "Migrate to…": a list of the other nodes, for those who would rather not drag. */
export function TargetPicker({ nodes, source, disabledReason, busy, onPick }: TargetPickerProps) {
  const [target, setTarget] = useState("");
  const options = useMemo(
    () =>
      nodes
        .map((n, i) => ({ i, n, ...judgeTarget(nodes, source, i) }))
        .filter((o) => o.i !== source)
        .sort((a, b) => Number(b.ok) - Number(a.ok) || a.n.name.localeCompare(b.n.name)),
    [nodes, source],
  );
  const disabled = disabledReason !== null || busy;
  return (
    <div className="migrate-picker" title={disabledReason ?? undefined}>
      <h4>Migrate</h4>
      <div className="migrate-picker-row">
        <select
          aria-label="Target node"
          data-testid="migrate-target"
          value={target}
          disabled={disabled}
          onChange={(e) => setTarget(e.target.value)}
        >
          <option value="">Target node…</option>
          {options.map((o) => (
            <option key={o.i} value={o.i} disabled={!o.ok}>
              {o.n.name} ({o.n.kind}, {Math.max(0, o.n.cores - o.n.used_cores).toFixed(1)} cores free){o.ok ? "" : ` — ${o.reason}`}
            </option>
          ))}
        </select>
        <button type="button" data-testid="migrate-predict" disabled={disabled || target === ""} onClick={() => onPick(Number(target))}>
          Predict
        </button>
      </div>
      <p className="muted migrate-note">
        {disabledReason ?? (busy ? "A migration is under way." : "Or drag the instance onto another node on the drawing.")}
      </p>
    </div>
  );
}
