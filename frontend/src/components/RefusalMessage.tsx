import type { Refusal } from "../lib/errors";

/** The API's refusal, word for word, with the field errors no form field shows: it reads as a refusal. */
export function RefusalMessage({ refusal, testId }: { refusal: Refusal<string> | null; testId?: string }) {
  if (refusal === null) return null;
  return (
    <div className="refusal" role="alert" data-testid={testId}>
      <p>{refusal.message}</p>
      {refusal.other.length > 0 && (
        <ul>
          {refusal.other.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
