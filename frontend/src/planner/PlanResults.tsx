import { formatLatencyMs, formatPercent, formatPrice, formatRequestsPerUsd, formatRps, formatUsd, formatWatts } from "../dashboard/format";
import { formatJoulesPerRequest } from "../lib/figures";
import { instancesText, serversText } from "./planFormat";
import type { PlanCandidate, PlanPublic } from "./planRequest";

/** A figure the model predicted: every cell of the table is one. */
function Model({ text, testId }: { text: string; testId?: string }) {
  return (
    <span className="plan-model" title="the model's prediction, not a measurement" data-testid={testId}>
      {text}
    </span>
  );
}

function PlanRow({ plan, years }: { plan: PlanCandidate; years: number[] }) {
  const byYear = new Map(plan.cost_efficiency.map((c) => [c.years, c]));
  const p = plan.predicted;
  return (
    <>
      <tr className={plan.feasible ? "plan-row" : "plan-row plan-infeasible"} data-testid={`plan-${plan.rank}`} data-feasible={String(plan.feasible)}>
        <td className="num">{plan.rank}</td>
        <td className="plan-servers" data-testid="plan-servers">
          {serversText(plan.servers)}
        </td>
        <td data-testid="plan-feasible">{plan.feasible ? "yes" : <span className="error">no</span>}</td>
        <td className="num">
          <Model text={formatUsd(plan.capex_usd)} testId="plan-capex" />
        </td>
        <td className="num">
          <Model text={formatWatts(plan.power_watts)} testId="plan-watts" />
        </td>
        <td className="num">
          <Model text={formatPercent(plan.utilisation)} />
        </td>
        <td className="num">
          <Model text={formatRps(p.throughput_rps)} />
        </td>
        <td className="num">
          <Model text={formatLatencyMs(p.avg_latency_ms)} />
        </td>
        <td className="num">
          <Model text={formatLatencyMs(p.p99_latency_ms)} testId="plan-p99" />
        </td>
        <td className="num">
          <Model text={formatJoulesPerRequest(p.joules_per_request)} />
        </td>
        {years.map((y) => (
          <td key={y} className="num">
            <Model text={formatRequestsPerUsd(byYear.get(y)?.requests_per_dollar)} testId={`plan-rpusd-${y}`} />
          </td>
        ))}
      </tr>
      {!plan.feasible && (
        <tr className="plan-reason-row">
          <td />
          <td colSpan={9 + years.length} className="error" data-testid="plan-reason">
            why not: {plan.reason}
          </td>
        </tr>
      )}
      {plan.placement.length > 0 && (
        <tr className="plan-placement-row">
          <td />
          <td colSpan={9 + years.length}>
            <details>
              <summary>
                placement{p.bottleneck ? `; saturates first at ${p.bottleneck}` : ""}
                {p.capacity_rps != null ? `, at ${formatRps(p.capacity_rps)}` : ""}
              </summary>
              <ul className="plan-placement">
                {plan.placement.map((n) => (
                  <li key={`${n.application}/${n.dag_node}`}>
                    {n.application} / {n.dag_node} ({n.service}): {instancesText(n.instances)}
                  </li>
                ))}
              </ul>
            </details>
          </td>
        </tr>
      )}
    </>
  );
}

/** The ranked candidates, every figure the model's, with the assumptions they rest on beside them. */
export function PlanResults({ answer }: { answer: PlanPublic }) {
  const years = answer.years;
  const apps = answer.applications.map((a) => `${String(a.name)} at ${formatRps(a.load_rps)}`).join(", ");
  return (
    <section className="panel plan-results" aria-labelledby="plan-results-title" data-testid="plan-results">
      <h2 id="plan-results-title">
        Ranked plans <span className="dash-source dash-source-estimated" title="every figure is the model's">MODEL</span>
      </h2>
      <p className="muted" data-testid="plan-basis">
        For {apps}, over {years.length} year{years.length === 1 ? "" : "s"}, electricity at {formatPrice(answer.price_per_kwh)} (
        {answer.price_source === "paper" ? "the paper's price" : "your price"}); {answer.evaluated} candidates evaluated. Every
        figure is the model's prediction, not a measurement.
      </p>
      <div className="plan-layout">
        <div className="plan-table-wrap">
          <table className="plan-table" data-testid="plan-table">
            <thead>
              <tr>
                <th>Rank</th>
                <th>Servers</th>
                <th>Feasible</th>
                <th>CAPEX (model)</th>
                <th>Power (model)</th>
                <th>Utilisation (model)</th>
                <th>Throughput (model)</th>
                <th>Avg latency (model)</th>
                <th>p99 latency (model)</th>
                <th>J/request (model)</th>
                {years.map((y) => (
                  <th key={y}>
                    Req/$ after {y} y (model)
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {answer.plans.map((plan) => (
                <PlanRow key={plan.rank} plan={plan} years={years} />
              ))}
            </tbody>
          </table>
          {answer.plans.length === 0 && <p className="muted">No candidate to rank.</p>}
        </div>
        <aside className="plan-assumptions" aria-labelledby="plan-assumptions-title" data-testid="plan-assumptions">
          <h3 id="plan-assumptions-title">Assumptions</h3>
          <ul>
            {answer.assumptions.map((a) => (
              <li key={a}>{a}</li>
            ))}
          </ul>
        </aside>
      </div>
    </section>
  );
}
