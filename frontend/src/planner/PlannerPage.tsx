import "./planner.css";

import { useState } from "react";

import { useServerTypes } from "../clusters/useServerTypes";
import { useFormSubmit } from "../hooks/useFormSubmit";
import { createPlan } from "./planApi";
import { PlannerForm } from "./PlannerForm";
import { EMPTY_FORM, type PlanField, type PlanForm, type PlanPublic, planFieldOf, planRequest } from "./planRequest";
import { PlanResults } from "./PlanResults";
import { useApplicationNames } from "./useApplicationNames";

/** The capacity planner (the paper's Figure 10 as a tool, POST /plans): which cluster to buy for these
 * applications at this load, ranked by predicted requests per dollar over the years of ownership. */
export function PlannerPage() {
  const names = useApplicationNames();
  const types = useServerTypes();
  const submit = useFormSubmit<PlanField>();
  const [form, setForm] = useState<PlanForm>(EMPTY_FORM);
  const [own, setOwn] = useState<Partial<Record<PlanField, string[]>> | null>(null);
  const [answer, setAnswer] = useState<PlanPublic | null>(null);

  const send = () => {
    const request = planRequest(form);
    if ("problem" in request) {
      setOwn({ [request.problem.field]: [request.problem.message] });
      return;
    }
    setOwn(null);
    submit.send(() => createPlan(request.body), planFieldOf, setAnswer);
  };

  return (
    <div className="plan-page" data-testid="planner">
      <h1>
        Capacity planner <span className="muted">· which cluster to buy, by predicted cost efficiency</span>
      </h1>
      <p className="muted">
        Places the applications on candidate clusters (the catalogue's server types and yours, in growing counts) and ranks
        them by requests per dollar: Throughput × T / (CAPEX + Power × T × Electricity), the paper's §5.5. Nothing is stored.
      </p>
      <PlannerForm
        form={form}
        onChange={(next) => {
          setForm(next);
          setOwn(null);
          submit.clearRefusal();
        }}
        onSubmit={send}
        busy={submit.busy}
        own={own}
        refusal={submit.refusal}
        applicationNames={names.names}
        applicationsError={names.error}
        serverTypes={types.types}
      />
      {answer !== null && <PlanResults answer={answer} />}
    </div>
  );
}
