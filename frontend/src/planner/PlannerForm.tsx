import type { ReactNode } from "react";

import { FormField } from "../components/FormField";
import { RefusalMessage } from "../components/RefusalMessage";
import { type Refusal, fieldMessages } from "../lib/errors";
import { type CustomTypeDraft, NEW_CUSTOM_TYPE, type PlanField, type PlanForm } from "./planRequest";

interface Props {
  form: PlanForm;
  onChange: (form: PlanForm) => void;
  onSubmit: () => void;
  busy: boolean;
  /** What the form itself could not send (a spec that does not parse). */
  own: Partial<Record<PlanField, string[]>> | null;
  refusal: Refusal<PlanField> | null;
  applicationNames: string[];
  applicationsError: string | null;
  serverTypes: { name: string; cost_usd: number; idle_watts: number; peak_watts: number }[];
}

const CUSTOM_COLUMNS: { key: keyof CustomTypeDraft; label: string; unit: string; mode: "text" | "numeric" | "decimal" }[] = [
  { key: "name", label: "Name", unit: "", mode: "text" },
  { key: "costUsd", label: "CAPEX", unit: "$", mode: "decimal" },
  { key: "idleWatts", label: "Idle", unit: "W", mode: "decimal" },
  { key: "peakWatts", label: "Peak", unit: "W", mode: "decimal" },
  { key: "hostCores", label: "Host cores", unit: "", mode: "numeric" },
  { key: "smartnics", label: "SmartNICs", unit: "", mode: "numeric" },
];

/** A group's field errors (under a fieldset rather than one control). */
function Messages({ messages, testId }: { messages: string[]; testId: string }) {
  if (messages.length === 0) return null;
  return (
    <ul className="form-field-errors" role="alert" data-testid={testId}>
      {messages.map((m, i) => (
        <li key={i}>{m}</li>
      ))}
    </ul>
  );
}

function toggle(list: string[], item: string, on: boolean): string[] {
  return on ? [...list.filter((x) => x !== item), item] : list.filter((x) => x !== item);
}

/** The planner's questions: which applications (stored, or a pasted spec), what load, how many years, what
 * electricity price, which server types (the catalogue's and your own). */
export function PlannerForm({ form, onChange, onSubmit, busy, own, refusal, applicationNames, applicationsError, serverTypes }: Props) {
  const set = (patch: Partial<PlanForm>) => onChange({ ...form, ...patch });
  const messages = (field: PlanField) => fieldMessages(field, own, refusal);
  const setCustom = (i: number, patch: Partial<CustomTypeDraft>) =>
    set({ custom: form.custom.map((c, k) => (k === i ? { ...c, ...patch } : c)) });

  let applications: ReactNode;
  if (form.source === "spec") {
    applications = (
      <textarea
        id="plan-spec"
        data-testid="plan-spec"
        rows={8}
        placeholder="apiVersion: e3/v1&#10;kind: Application&#10;…"
        value={form.specText}
        onChange={(e) => set({ specText: e.target.value })}
      />
    );
  } else if (applicationsError !== null) {
    applications = <p className="error">Could not list the applications: {applicationsError}</p>;
  } else if (applicationNames.length === 0) {
    applications = <p className="muted">No stored applications: paste a spec instead.</p>;
  } else {
    applications = (
      <div className="plan-checks" id="plan-applications" data-testid="plan-applications">
        {applicationNames.map((name) => (
          <label key={name}>
            <input
              type="checkbox"
              checked={form.names.includes(name)}
              onChange={(e) => set({ names: toggle(form.names, name, e.target.checked) })}
            />{" "}
            {name}
          </label>
        ))}
      </div>
    );
  }

  return (
    <form
      className="panel plan-form"
      aria-labelledby="plan-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <h2 id="plan-form-title">What to plan for</h2>
      <fieldset>
        <legend>Applications</legend>
        <div className="plan-source" role="radiogroup" aria-label="Applications from">
          <label>
            <input type="radio" name="plan-source" checked={form.source === "stored"} onChange={() => set({ source: "stored" })} /> stored
          </label>
          <label>
            <input
              type="radio"
              name="plan-source"
              data-testid="plan-source-spec"
              checked={form.source === "spec"}
              onChange={() => set({ source: "spec" })}
            />{" "}
            paste a spec
          </label>
        </div>
        <FormField label={form.source === "spec" ? "Spec (YAML or JSON)" : "Placed together"} htmlFor={form.source === "spec" ? "plan-spec" : "plan-applications"} messages={messages("applications")} testId="plan-applications-errors">
          {applications}
        </FormField>
      </fieldset>
      <div className="plan-numbers">
        <FormField label="Load (req/s)" htmlFor="plan-load" messages={messages("load")} testId="plan-load-errors" hint="total offered load, shared by the applications">
          <input id="plan-load" data-testid="plan-load" inputMode="decimal" value={form.load} onChange={(e) => set({ load: e.target.value })} />
        </FormField>
        <FormField label="Years of ownership" htmlFor="plan-years" messages={messages("years")} testId="plan-years-errors" hint="requests per $ after 1 … this many">
          <input id="plan-years" data-testid="plan-years" inputMode="numeric" value={form.years} onChange={(e) => set({ years: e.target.value })} />
        </FormField>
        <FormField label="Electricity ($/kWh)" htmlFor="plan-price" messages={messages("price")} testId="plan-price-errors" hint="empty: the paper's $0.0733">
          <input id="plan-price" data-testid="plan-price" inputMode="decimal" value={form.price} onChange={(e) => set({ price: e.target.value })} />
        </FormField>
      </div>
      <fieldset>
        <legend>Server types to consider</legend>
        <label>
          <input type="checkbox" data-testid="plan-all-types" checked={form.allTypes} onChange={(e) => set({ allTypes: e.target.checked })} /> every
          type of the catalogue (paper Table 4)
        </label>
        {!form.allTypes && (
          <div className="plan-checks" data-testid="plan-server-types">
            {serverTypes.map((t) => (
              <label key={t.name} title={`$${t.cost_usd}, ${t.idle_watts}–${t.peak_watts} W`}>
                <input
                  type="checkbox"
                  checked={form.serverTypes.includes(t.name)}
                  onChange={(e) => set({ serverTypes: toggle(form.serverTypes, t.name, e.target.checked) })}
                />{" "}
                {t.name}
              </label>
            ))}
          </div>
        )}
        <Messages messages={messages("serverTypes")} testId="plan-server-types-errors" />
      </fieldset>
      <fieldset>
        <legend>Your own server types</legend>
        {form.custom.length > 0 && (
          <table className="plan-custom">
            <thead>
              <tr>
                {CUSTOM_COLUMNS.map((c) => (
                  <th key={c.key}>
                    {c.label}
                    {c.unit ? ` (${c.unit})` : ""}
                  </th>
                ))}
                <th>Cores like</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {form.custom.map((row, i) => (
                <tr key={i} data-testid={`plan-custom-${i}`}>
                  {CUSTOM_COLUMNS.map((c) => (
                    <td key={c.key}>
                      <input
                        aria-label={`${c.label} of custom type ${i + 1}`}
                        data-testid={`plan-custom-${i}-${c.key}`}
                        inputMode={c.mode}
                        value={row[c.key]}
                        onChange={(e) => setCustom(i, { [c.key]: e.target.value })}
                      />
                    </td>
                  ))}
                  <td>
                    <select
                      aria-label={`Core class of custom type ${i + 1}`}
                      value={row.hostCoreClass}
                      onChange={(e) => setCustom(i, { hostCoreClass: e.target.value === "wimpy" ? "wimpy" : "beefy" })}
                    >
                      <option value="beefy">beefy (Xeon-class)</option>
                      <option value="wimpy">wimpy (cnMIPS-class)</option>
                    </select>
                  </td>
                  <td>
                    <button type="button" className="link" onClick={() => set({ custom: form.custom.filter((_, k) => k !== i) })}>
                      remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <button type="button" className="secondary" data-testid="plan-add-custom" onClick={() => set({ custom: [...form.custom, { ...NEW_CUSTOM_TYPE }] })}>
          Add a server type
        </button>
        <Messages messages={messages("custom")} testId="plan-custom-errors" />
      </fieldset>
      <RefusalMessage refusal={refusal} testId="plan-refusal" />
      <div className="form-actions">
        <button type="submit" data-testid="plan-submit" disabled={busy}>
          {busy ? "Planning…" : "Rank the candidates"}
        </button>
      </div>
    </form>
  );
}
