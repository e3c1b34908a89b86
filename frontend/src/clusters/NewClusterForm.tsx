import { type FormEvent, useState } from "react";
import type { ClusterRow } from "../api/client";
import { FormField } from "../components/FormField";
import { FormActions } from "../components/FormActions";
import { useFormSubmit } from "../hooks/useFormSubmit";
import { fieldMessages, noField } from "../lib/errors";
import { createCluster } from "./clusterApi";
import {
  type GeneratorField,
  type GeneratorForm,
  defaultClusterName,
  generatorBody,
  generatorFieldOf,
  generatorPreview,
  pastedPreview,
} from "./clusterRequest";
import { DEFAULT_SERVERS_PER_RACK } from "./clusterSize";
import { SizePreview } from "./SizePreview";
import { useServerTypes } from "./useServerTypes";

type Mode = "generator" | "spec";

const MODES: { mode: Mode; label: string }[] = [
  { mode: "generator", label: "the fattree generator" },
  { mode: "spec", label: "a spec (YAML or JSON)" },
];

const SPEC_EXAMPLE = `apiVersion: e3/v1
kind: Cluster
metadata: {name: lab}
spec:
  racks:
    - servers: [{type: type2-smartnic, count: 4}, {type: beefy, count: 2}]`;

interface Props {
  onCreated: (cluster: ClusterRow) => void;
  onCancel: () => void;
}

/** A new cluster from the fattree generator's fields or a pasted spec, with its size shown before it is made. */
export function NewClusterForm({ onCreated, onCancel }: Props) {
  const { types, error: typesError } = useServerTypes();
  const [mode, setMode] = useState<Mode>("generator");
  const [form, setForm] = useState<GeneratorForm>({ name: "", servers: "3", serverType: "", serversPerRack: "" });
  const [spec, setSpec] = useState("");
  const [submitted, setSubmitted] = useState(false);
  const { busy, refusal, clearRefusal, send } = useFormSubmit<GeneratorField>();

  // The catalogue arrives after the first render: until a type is picked, the first with SmartNICs is.
  const serverType = form.serverType || (types.find((t) => t.smartnics > 0) ?? types[0])?.name || "";
  const filled = { ...form, serverType };
  const preview = mode === "generator" ? generatorPreview(filled, types) : pastedPreview(spec, types);
  const request = generatorBody(filled);
  const messages = (field: GeneratorField) => fieldMessages(field, submitted && !request.ok ? request.errors : null, refusal);

  const edit = (patch: Partial<GeneratorForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    clearRefusal();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (mode === "spec") send(() => createCluster({ spec }), noField, onCreated);
    else if (request.ok) send(() => createCluster({ generator: request.body }), generatorFieldOf, onCreated);
  };

  return (
    <form className="panel new-cluster" onSubmit={submit} data-testid="new-cluster-form" aria-labelledby="new-cluster-title">
      <h3 id="new-cluster-title">New cluster</h3>
      <fieldset className="mode-switch">
        <legend className="muted">Describe it by</legend>
        {MODES.map(({ mode: value, label }) => (
          <label key={value}>
            <input
              type="radio"
              name="cluster-mode"
              data-testid={`cluster-mode-${value}`}
              checked={mode === value}
              onChange={() => {
                setMode(value);
                clearRefusal();
              }}
            />{" "}
            {label}
          </label>
        ))}
      </fieldset>

      {mode === "generator" ? (
        <div className="form-grid">
          <FormField label="Name" htmlFor="cluster-name" messages={messages("name")} testId="error-name"
                     hint="lower-case letters, digits and '-'; blank for the default">
            <input id="cluster-name" data-testid="cluster-name" value={form.name} autoComplete="off" spellCheck={false}
                   placeholder={defaultClusterName(filled.servers, serverType)} onChange={(e) => edit({ name: e.target.value })} />
          </FormField>
          <FormField label="Servers" htmlFor="cluster-servers" messages={messages("servers")} testId="error-servers">
            <input id="cluster-servers" data-testid="cluster-servers" inputMode="numeric" value={form.servers}
                   onChange={(e) => edit({ servers: e.target.value })} />
          </FormField>
          <FormField label="Server type" htmlFor="cluster-server-type" messages={messages("server_type")}
                     testId="error-server_type" hint={typesError ?? undefined}>
            <select id="cluster-server-type" data-testid="cluster-server-type" value={serverType}
                    onChange={(e) => edit({ serverType: e.target.value })}>
              {types.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name} ({t.smartnics === 0 ? "no SmartNIC" : `${t.smartnics} SmartNIC${t.smartnics > 1 ? "s" : ""}`})
                </option>
              ))}
            </select>
          </FormField>
          <FormField label="Servers per rack" htmlFor="cluster-per-rack" messages={messages("servers_per_rack")}
                     testId="error-servers_per_rack">
            <input id="cluster-per-rack" data-testid="cluster-per-rack" inputMode="numeric" value={form.serversPerRack}
                   placeholder={String(DEFAULT_SERVERS_PER_RACK)} onChange={(e) => edit({ serversPerRack: e.target.value })} />
          </FormField>
        </div>
      ) : (
        <FormField label="Cluster spec" htmlFor="cluster-spec"
                   hint={<>racks of servers by type, or a generator: see docs/specs.md</>}>
          <textarea id="cluster-spec" data-testid="cluster-spec" className="spec-paste" value={spec} spellCheck={false}
                    placeholder={SPEC_EXAMPLE} onChange={(e) => {
                      setSpec(e.target.value);
                      clearRefusal();
                    }} />
        </FormField>
      )}

      <SizePreview preview={preview} />
      <FormActions refusal={refusal} refusalTestId="create-refusal" submitLabel="Create cluster" submitTestId="create-cluster"
                   busy={busy} disabled={mode === "spec" && spec.trim() === ""} onCancel={onCancel} />
    </form>
  );
}
