import { useState } from "react";

import type { Refusal } from "../lib/errors";
import type { RangeField } from "./energyApi";
import { PRESETS, type RangeChoice, type RangeProblem, toLocalInput } from "./timeRange";

/** The messages a custom field shows: the picker's own (left empty), then the API's for that field. */
function messagesFor(field: "from" | "to", problem: RangeProblem | null, refusal: Refusal<RangeField> | null): string[] {
  return [...(problem?.field === field ? [problem.message] : []), ...(refusal?.byField[field] ?? [])];
}

/** Last 15 min … 7 d, or a custom from/to (local time). A preset applies at once; a custom range on "Show". */
export function RangePicker({
  choice,
  onChoose,
  refusal,
  problem,
}: {
  choice: RangeChoice;
  onChoose: (choice: RangeChoice) => void;
  refusal: Refusal<RangeField> | null;
  problem: RangeProblem | null;
}) {
  const [custom, setCustom] = useState(choice.kind === "custom");
  const [from, setFrom] = useState(choice.kind === "custom" ? choice.from : toLocalInput(Date.now() - 3600_000));
  const [to, setTo] = useState(choice.kind === "custom" ? choice.to : toLocalInput(Date.now()));
  const fields = [
    { field: "from" as const, label: "From", value: from, set: setFrom },
    { field: "to" as const, label: "To", value: to, set: setTo },
  ];
  return (
    <div className="energy-picker" role="group" aria-label="Time range">
      <span className="muted">Last</span>
      {PRESETS.map((p) => {
        const on = choice.kind === "preset" && choice.preset === p.id;
        return (
          <button
            key={p.id}
            type="button"
            className={on ? "energy-range on" : "energy-range"}
            aria-pressed={on}
            data-testid={`energy-range-${p.id}`}
            onClick={() => {
              setCustom(false);
              onChoose({ kind: "preset", preset: p.id });
            }}
          >
            {p.label}
          </button>
        );
      })}
      <button
        type="button"
        className={custom ? "energy-range on" : "energy-range"}
        aria-pressed={choice.kind === "custom"}
        aria-expanded={custom}
        data-testid="energy-range-custom"
        onClick={() => setCustom(!custom)}
      >
        Custom…
      </button>
      {custom && (
        <form
          className="energy-custom"
          onSubmit={(e) => {
            e.preventDefault();
            onChoose({ kind: "custom", from, to });
          }}
        >
          {fields.map(({ field, label, value, set }) => {
            const messages = messagesFor(field, problem, refusal);
            const id = `energy-${field}`;
            return (
              <span key={field} className="energy-custom-field">
                <label htmlFor={id}>{label}</label>
                <input
                  id={id}
                  type="datetime-local"
                  value={value}
                  data-testid={id}
                  aria-invalid={messages.length > 0}
                  aria-describedby={`${id}-message`}
                  onChange={(e) => set(e.target.value)}
                />
                <span id={`${id}-message`} className="error" role={messages.length > 0 ? "alert" : undefined} data-testid={`${id}-message`}>
                  {messages.length > 0 ? `${field}: ${messages.join("; ")}` : ""}
                </span>
              </span>
            );
          })}
          <button type="submit" data-testid="energy-range-apply">
            Show
          </button>
        </form>
      )}
    </div>
  );
}
