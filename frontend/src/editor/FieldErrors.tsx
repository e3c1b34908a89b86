import type { FieldError } from "./dagValidation";

interface FieldErrorsProps {
  errors: readonly FieldError[];
  /** The field whose errors to show, as the API names it (`spec.nodes[2].shards`). */
  field: string;
  /** For an input's aria-describedby. */
  id?: string;
  testId?: string;
}

/** The messages of every error at `field`, under its input; nothing when there is none. */
export function FieldErrors({ errors, field, id, testId }: FieldErrorsProps) {
  const mine = errors.filter((e) => e.field === field);
  if (mine.length === 0) return null;
  return (
    <div className="field-error" role="alert" id={id} data-testid={testId}>
      {mine.map((e, i) => (
        <div key={i}>{e.message}</div>
      ))}
    </div>
  );
}
