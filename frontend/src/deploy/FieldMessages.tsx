/** The API's (or the form's) messages about one field, shown next to it. */
export function FieldMessages({ messages, testId }: { messages: readonly string[] | undefined; testId?: string }) {
  if (messages === undefined || messages.length === 0) return null;
  return (
    <ul className="field-messages" role="alert" data-testid={testId}>
      {messages.map((m, i) => (
        <li key={i}>{m}</li>
      ))}
    </ul>
  );
}
