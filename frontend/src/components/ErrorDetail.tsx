import { Fragment } from "react";
import { errorDetailLines } from "../lib/format";

/** A job's or deployment's error in full; its codes and field paths as chips that never break mid-word. */
export function ErrorDetail({ error, shownMessage }: { error: unknown; shownMessage?: string }) {
  const lines = errorDetailLines(error, shownMessage);
  if (lines === null) return null;
  return (
    <pre className="error-detail" data-testid="error-detail">
      {lines.map((line, i) => (
        <Fragment key={i}>
          {i > 0 && "\n"}
          {line.map((part, j) =>
            part.code ? (
              <code key={j} className="error-code" data-testid="error-code">
                {part.text}
              </code>
            ) : (
              <Fragment key={j}>{part.text}</Fragment>
            ),
          )}
        </Fragment>
      ))}
    </pre>
  );
}
