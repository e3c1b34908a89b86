export function NotFound({ path }: { path: string }) {
  return (
    <section className="panel list-panel">
      <h2>Not found</h2>
      <p>
        Nothing lives at <code>#{path}</code>. <a href="#/">Back home</a>.
      </p>
    </section>
  );
}
