/** What the last action did ("Deleted cluster lab and its 50 servers…"), until the next one. */
export function Notice({ text, testId }: { text: string | null; testId: string }) {
  if (text === null) return null;
  return (
    <p className="notice" role="status" data-testid={testId}>
      {text}
    </p>
  );
}
