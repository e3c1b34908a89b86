import { formatJoulesPerRequest, formatLatencyUs, formatRps, formatWatts, sourceLabel } from "../dashboard/format";
import { formatTime } from "../lib/format";
import type { Change, MomentDiff, MomentInstance } from "./momentDiff";
import { placementUnchanged } from "./momentDiff";

const iso = (t: number) => new Date(t).toISOString();
const who = (i: MomentInstance) => `${i.application} · ${i.dagNode} shard ${i.shard} ${i.role}`;

function ChangeCell({ change, format }: { change: Change; format: (v: unknown) => string }) {
  const ratio = change.ratio === null ? "" : ` (${change.ratio.toFixed(2)}×)`;
  return <td>{format(change.before)} → {format(change.after)}{ratio}</td>;
}

function InstanceList({ title, testId, items }: { title: string; testId: string; items: { key: string; text: string }[] }) {
  if (!items.length) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul className="replay-diff-list" data-testid={testId}>
        {items.map((i) => <li key={i.key}>{i.text}</li>)}
      </ul>
    </>
  );
}

/** What changed between the two moments compared: instances moved, promoted, appeared and gone; node states;
 * each application's figures at both (measured, with their energy source). */
export function MomentDiffPanel({ diff, loading, error }: { diff: MomentDiff | null; loading: boolean; error: string | null }) {
  return (
    <section className="panel replay-diff" data-testid="moment-diff" aria-busy={loading}>
      <h3>{diff ? `Changes from ${formatTime(iso(diff.before))} to ${formatTime(iso(diff.after))}` : "Changes"}</h3>
      {error && <p className="error" role="alert">Could not compare: {error}</p>}
      {!diff && !error && <p className="muted">Reading both moments…</p>}
      {diff && (
        <>
          {!diff.known.before && (
            <p className="replay-note">No placement is recorded at the earlier moment: every instance shows as new.</p>
          )}
          {placementUnchanged(diff) && <p className="muted" data-testid="diff-none">Nothing moved, appeared, went or changed state.</p>}
          <InstanceList title="Moved" testId="diff-moved"
                        items={diff.moved.map((m) => ({ key: m.instance.id, text: `${who(m.instance)}: ${m.from} → ${m.to}` }))} />
          <InstanceList title="Promoted (failover)" testId="diff-promoted"
                        items={diff.promoted.map((p) => ({ key: p.instance.id, text: `${who(p.instance)} on ${p.node}` }))} />
          <InstanceList title="Appeared" testId="diff-appeared"
                        items={diff.appeared.map((i) => ({ key: i.id, text: `${who(i)} on ${i.node}` }))} />
          <InstanceList title="Went" testId="diff-went" items={diff.went.map((i) => ({ key: i.id, text: `${who(i)} on ${i.node}` }))} />
          <InstanceList title="Node states" testId="diff-nodes"
                        items={diff.nodeStates.map((n) => ({ key: n.node, text: `${n.node}: ${n.from} → ${n.to}` }))} />
          {diff.applications.length > 0 && (
            <div data-testid="diff-figures">
              <p className="muted replay-note">
                Throughput and latency: measured over the 10 s before each moment. J/request and power: over its 10 s
                energy step, from the source named (the model's are estimates, not measurements).
              </p>
              {diff.applications.map((a) => (
                <table key={a.application} className="replay-diff-figures">
                  <caption>{a.application}{a.only ? ` (deployed at the ${a.only === "before" ? "earlier" : "later"} moment only)` : ""}</caption>
                  <tbody>
                    <tr><th scope="row">Throughput</th><ChangeCell change={a.throughputRps} format={formatRps} /></tr>
                    <tr><th scope="row">Mean latency</th><ChangeCell change={a.avgLatencyUs} format={formatLatencyUs} /></tr>
                    <tr><th scope="row">p99 (upper bound)</th><ChangeCell change={a.p99LatencyUs} format={formatLatencyUs} /></tr>
                    <tr><th scope="row">J/request</th><ChangeCell change={a.joulesPerRequest} format={formatJoulesPerRequest} /></tr>
                    <tr>
                      <th scope="row">Power</th>
                      <ChangeCell change={a.watts} format={formatWatts} />
                    </tr>
                    <tr>
                      <th scope="row">Energy source</th>
                      <td>{sourceLabel(a.sources.before)} → {sourceLabel(a.sources.after)}</td>
                    </tr>
                  </tbody>
                </table>
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}
