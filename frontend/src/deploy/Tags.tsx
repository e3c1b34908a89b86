export const MODELLED_TOOLTIP = "predicted by the cost model, not measured";
export const MEASURED_TOOLTIP = "measured: the algorithm's own running time on the server";

/** Marks a figure (or a group of them) as the cost model's prediction. */
export function ModelledTag() {
  return (
    <span className="tag tag-modelled" title={MODELLED_TOOLTIP}>
      modelled
    </span>
  );
}

/** Marks the one measured figure. */
export function MeasuredTag() {
  return (
    <span className="tag tag-measured" title={MEASURED_TOOLTIP}>
      measured
    </span>
  );
}
