import type { SizePreview as Preview } from "./clusterSize";

const n = (value: number) => value.toLocaleString("en-US");

/** What the cluster will hold, before it is created: racks, servers, computing nodes (hosts + SmartNICs). */
export function SizePreview({ preview }: { preview: Preview }) {
  if (!preview.ok) {
    return (
      <p className="muted size-preview" data-testid="cluster-preview-problem" aria-live="polite">
        Size preview: {preview.problem}
      </p>
    );
  }
  const { racks, servers, nodes, hosts, smartnics } = preview.size;
  return (
    <dl className="size-preview" data-testid="cluster-preview" aria-live="polite">
      <div>
        <dt>Racks</dt>
        <dd data-testid="preview-racks">{n(racks)}</dd>
      </div>
      <div>
        <dt>Servers</dt>
        <dd data-testid="preview-servers">{n(servers)}</dd>
      </div>
      <div>
        <dt>Computing nodes</dt>
        <dd data-testid="preview-nodes">{n(nodes)}</dd>
      </div>
      <div>
        <dt>of which hosts</dt>
        <dd data-testid="preview-hosts">{n(hosts)}</dd>
      </div>
      <div>
        <dt>of which SmartNICs</dt>
        <dd data-testid="preview-smartnics">{n(smartnics)}</dd>
      </div>
    </dl>
  );
}
