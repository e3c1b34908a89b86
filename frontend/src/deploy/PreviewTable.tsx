import type { ReactNode } from "react";
import { formatErrorLine } from "./deployJob";
import {
  formatJoulesPerRequest,
  formatMs,
  formatRatio,
  formatRequestsPerJoule,
  formatRps,
  formatRuntime,
  formatWatts,
  MISSING,
} from "../lib/figures";
import { type PreviewRow, type PreviewTable as Table, algorithmLabel } from "./deployPreview";
import { MeasuredTag, MODELLED_TOOLTIP, ModelledTag } from "./Tags";

const PREDICTED_COLUMNS = 10;

function count(n: number | null): string {
  return n === null ? MISSING : String(n);
}


function Cell({ algorithm, figure, children, title }: { algorithm: string; figure: string; children: ReactNode; title?: string }) {
  return (
    <td className={`num ${figure}`} data-testid={`preview-${algorithm}-${figure}`} title={title ?? MODELLED_TOOLTIP}>
      {children}
    </td>
  );
}

function Row({
  row,
  best,
  baseline,
  shown,
  onShow,
}: {
  row: PreviewRow;
  best: boolean;
  baseline: string;
  shown: boolean;
  onShow: (algorithm: string | null) => void;
}) {
  const a = row.algorithm;
  const p = row.prediction;
  return (
    <tr data-testid={`preview-row-${a}`} className={best ? "best" : row.placed ? undefined : "unplaced"}>
      <th scope="row" className="algorithm">
        {algorithmLabel(a)}
        {a === baseline && <span className="hint"> (baseline)</span>}
        {!row.placed && <div className="warn">not placed</div>}
        {row.objective !== "" && (
          <div className="objective" data-testid={`preview-${a}-objective`}>
            <span className="hint">Optimises: </span>
            {row.objective}
          </div>
        )}
        <div className="optimality hint" data-testid={`preview-${a}-optimality`}>
          Result: {row.optimality}
        </div>
        {row.placed && row.assignments !== null && (
          <button
            type="button"
            className="link-button"
            aria-pressed={shown}
            data-testid={`preview-${a}-show`}
            onClick={() => onShow(shown ? null : a)}
          >
            {shown ? "Hide placement" : "Show placement"}
          </button>
        )}
      </th>
      <td className="num runtime" data-testid={`preview-${a}-runtime`} title="measured">
        {formatRuntime(row.runtimeMs)}
      </td>
      {row.placed && p !== null ? (
        <>
          <Cell algorithm={a} figure="throughput">
            {formatRps(p.throughputRps)}
            {p.saturated && <span className="warn"> saturated</span>}
          </Cell>
          <Cell algorithm={a} figure="latency">{formatMs(p.avgLatencyMs)}</Cell>
          <Cell algorithm={a} figure="p99">{formatMs(p.p99LatencyMs)}</Cell>
          <Cell algorithm={a} figure="power">{formatWatts(p.powerWatts)}</Cell>
          <Cell algorithm={a} figure="jpr">{formatJoulesPerRequest(p.joulesPerRequest)}</Cell>
          <Cell algorithm={a} figure="rpj">
            {formatRequestsPerJoule(p.requestsPerJoule)}
            {best && <span className="best-badge"> best</span>}
          </Cell>
          <td className="num placement" data-testid={`preview-${a}-placement`}>
            {count(row.instancesOnHost)} / {count(row.instancesOnSmartnic)}
          </td>
          <td className="num servers" data-testid={`preview-${a}-servers`}>{count(row.serversUsed)}</td>
          <Cell algorithm={a} figure="rpj-ratio">{formatRatio(row.requestsPerJouleRatio)}</Cell>
          <Cell algorithm={a} figure="latency-ratio">{formatRatio(row.avgLatencyRatio)}</Cell>
        </>
      ) : (
        <td colSpan={PREDICTED_COLUMNS} className="row-error" data-testid={`preview-${a}-error`}>
          <strong>{row.errorMessage ?? "Not placed"}</strong>
          {row.errorLines.length > 0 && (
            <ul>
              {row.errorLines.map((line, i) => (
                <li key={i}>{formatErrorLine(line)}</li>
              ))}
            </ul>
          )}
        </td>
      )}
    </tr>
  );
}

/** The four placements side by side, each with what it optimises; every predicted figure is labelled modelled. */
export function PreviewTable({
  table,
  offeredRps,
  shown,
  onShow,
}: {
  table: Table;
  offeredRps: string;
  /** The algorithm whose placement is drawn on the cluster, or null. */
  shown: string | null;
  onShow: (algorithm: string | null) => void;
}) {
  const baseline = algorithmLabel(table.baseline);
  return (
    <div className="preview-table-wrap">
      <p className="hint">
        {table.application} on {table.cluster}
        {table.instances !== null && `, ${table.instances} instances`} — figures{" "}
        {offeredRps.trim() === "" ? "at each placement's knee" : `at an offered load of ${offeredRps.trim()} req/s`}.
      </p>
      <table className="preview-table" data-testid="preview-table">
        <thead>
          <tr>
            <th colSpan={2} />
            <th colSpan={6} className="group" title={MODELLED_TOOLTIP}>
              Predicted <ModelledTag />
            </th>
            <th colSpan={2} className="group">Placement</th>
            <th colSpan={2} className="group" title={MODELLED_TOOLTIP}>
              vs {baseline} <ModelledTag />
            </th>
          </tr>
          <tr>
            <th scope="col">Algorithm: what it optimises</th>
            <th scope="col" title="measured">
              Runtime <MeasuredTag />
            </th>
            <th scope="col" title={MODELLED_TOOLTIP}>Throughput</th>
            <th scope="col" title={MODELLED_TOOLTIP}>Avg latency</th>
            <th scope="col" title={MODELLED_TOOLTIP}>p99 latency</th>
            <th scope="col" title={MODELLED_TOOLTIP}>Power</th>
            <th scope="col" title={MODELLED_TOOLTIP}>J / request</th>
            <th scope="col" title={MODELLED_TOOLTIP}>Requests / J</th>
            <th scope="col" title="instances on hosts / on SmartNICs">Host / NIC</th>
            <th scope="col">Servers</th>
            <th scope="col" title={MODELLED_TOOLTIP}>req/J</th>
            <th scope="col" title={MODELLED_TOOLTIP}>Avg latency</th>
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <Row
              key={row.algorithm}
              row={row}
              best={row.algorithm === table.best}
              baseline={table.baseline}
              shown={row.algorithm === shown}
              onShow={onShow}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
