import { BIG_STEP, STEP } from "./useSelectionKeys";

const SHORTCUTS: readonly [string, string][] = [
  ["Tab / Shift+Tab", "move between the palette, the canvas and the panels"],
  ["Enter or Space", "on a palette service: add it to the canvas (selected)"],
  ["Click, Shift+click", "select a node or an edge; add to the selection"],
  ["Shift+drag", "select the nodes in a box"],
  ["Delete / Backspace", "remove the selected nodes and edges"],
  ["Arrow keys", `move the selected nodes ${STEP} px (Shift: ${BIG_STEP} px)`],
  ["Ctrl+C / Ctrl+V", "copy the selected nodes with the edges among them; paste them"],
  ["Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y", "undo / redo"],
  ["Escape", "select nothing"],
];

/** The editor's keyboard shortcuts, folded away until asked for. */
export function ShortcutsHelp() {
  return (
    <details className="shortcuts" data-testid="shortcuts">
      <summary>Keyboard shortcuts</summary>
      <dl>
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
