import { type FormEvent, useState } from "react";
import { FormField } from "../components/FormField";
import { FormActions } from "../components/FormActions";
import { useFormSubmit } from "../hooks/useFormSubmit";
import { fieldMessages } from "../lib/errors";
import type { Scope } from "../lib/scopes";
import { type TokenCreated, createToken } from "./adminApi";
import { MAX_EXPIRY_DAYS, SCOPE_MEANINGS, type TokenField, type TokenForm, tokenBody, tokenFieldOf } from "./tokenForm";

interface Props {
  onCreated: (token: TokenCreated) => void;
  onCancel: () => void;
}

/** A new token: a name, its scopes, an expiry; the answer (with the secret) goes to `onCreated`. */
export function NewTokenForm({ onCreated, onCancel }: Props) {
  const [form, setForm] = useState<TokenForm>({ name: "", scopes: ["read"], expiresInDays: "" });
  const [submitted, setSubmitted] = useState(false);
  const { busy, refusal, clearRefusal, send } = useFormSubmit<TokenField>();
  const request = tokenBody(form);
  const messages = (field: TokenField) => fieldMessages(field, submitted && !request.ok ? request.errors : null, refusal);

  const edit = (patch: Partial<TokenForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    clearRefusal();
  };
  const toggle = (scope: Scope, on: boolean) =>
    edit({ scopes: on ? [...form.scopes, scope] : form.scopes.filter((s) => s !== scope) });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (request.ok) send(() => createToken(request.body), tokenFieldOf, onCreated);
  };

  return (
    <form className="panel new-token" onSubmit={submit} data-testid="new-token-form" aria-labelledby="new-token-title">
      <h3 id="new-token-title">New token</h3>
      <div className="form-grid">
        <FormField label="Name" htmlFor="token-name" messages={messages("name")} testId="error-token-name"
                   hint="letters, digits, _ . - (e.g. ci-nightly)">
          <input id="token-name" data-testid="token-name" value={form.name} autoComplete="off" spellCheck={false}
                 onChange={(e) => edit({ name: e.target.value })} />
        </FormField>
        <FormField label="Expires in (days)" htmlFor="token-expiry" messages={messages("expires_in_days")}
                   testId="error-token-expiry" hint={`1 to ${MAX_EXPIRY_DAYS}; blank: never`}>
          <input id="token-expiry" data-testid="token-expiry" inputMode="numeric" value={form.expiresInDays}
                 placeholder="never" onChange={(e) => edit({ expiresInDays: e.target.value })} />
        </FormField>
      </div>
      <fieldset className="scope-choices">
        <legend>Scopes</legend>
        {SCOPE_MEANINGS.map(({ scope, meaning }) => (
          <label key={scope}>
            <input type="checkbox" data-testid={`token-scope-${scope}`} checked={form.scopes.includes(scope)}
                   onChange={(e) => toggle(scope, e.target.checked)} />{" "}
            <strong>{scope}</strong> <span className="muted">— {meaning}</span>
          </label>
        ))}
        {messages("scopes").length > 0 && (
          <ul className="form-field-errors" role="alert" data-testid="error-token-scopes">
            {messages("scopes").map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        )}
      </fieldset>
      <FormActions refusal={refusal} refusalTestId="token-refusal" submitLabel="Create token" submitTestId="create-token"
                   busy={busy} onCancel={onCancel} />
    </form>
  );
}
