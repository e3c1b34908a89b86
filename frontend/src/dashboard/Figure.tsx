import type { ReactNode } from "react";

/** A value with its label, struck and greyed when old (never shown as current), a dash when none. */
export function Figure({
  label,
  text,
  old,
  testId,
  badge,
  sub,
  spark,
  title,
}: {
  label: string;
  text: string;
  old: boolean;
  testId: string;
  badge?: ReactNode;
  sub?: ReactNode;
  spark?: ReactNode;
  title?: string;
}) {
  return (
    <div className="dash-figure">
      <span className="dash-label">{label}</span>
      <span
        className={`dash-value${old ? " dash-old" : ""}`}
        data-testid={testId}
        data-old={old ? "true" : "false"}
        title={old ? `last known value, not current${title ? ` · ${title}` : ""}` : title}
      >
        {text}
      </span>
      <span className="dash-badge-slot">{badge}</span>
      <span className="dash-spark-slot">{spark}</span>
      <span className="dash-sub">{sub}</span>
    </div>
  );
}
