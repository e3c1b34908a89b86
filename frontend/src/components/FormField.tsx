import type { ReactNode } from "react";

interface Props {
  label: string;
  /** The id of the control inside, for the label. */
  htmlFor: string;
  /** What the form or the API said about this field; shown under it. */
  messages?: readonly string[] | undefined;
  /** The messages' test id. */
  testId?: string;
  hint?: ReactNode;
  children: ReactNode;
}

/** A labelled form control with what is wrong with it right underneath. */
export function FormField({ label, htmlFor, messages, testId, hint, children }: Props) {
  const invalid = messages !== undefined && messages.length > 0;
  return (
    <div className={`form-field${invalid ? " invalid" : ""}`}>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      {hint !== undefined && <span className="muted form-hint">{hint}</span>}
      {invalid && (
        <ul className="form-field-errors" role="alert" data-testid={testId}>
          {messages.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
