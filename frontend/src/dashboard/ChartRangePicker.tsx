import { CHART_RANGES, type ChartRangeId } from "./chartRange";

/** The chart's range, 5 min … 7 d back from now: one pressed button of a group. */
export function ChartRangePicker({ range, onRange }: { range: ChartRangeId; onRange: (range: ChartRangeId) => void }) {
  return (
    <div className="fig-ranges" role="group" aria-label="Chart range" data-testid="chart-range">
      {CHART_RANGES.map(({ id, label }) => (
        <button
          key={id}
          type="button"
          className="fig-range"
          aria-pressed={id === range}
          data-range={id}
          onClick={() => onRange(id)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
