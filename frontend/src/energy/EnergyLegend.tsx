import { type EnergySeries, sourceClass, sourceLegend } from "./series";

/** What the colours and strokes mean: each source present (the model's hatched, "not measured"), the lines, and
 * the shading of steps without data. */
export function EnergyLegend({ series }: { series: EnergySeries }) {
  return (
    <ul className="energy-legend" data-testid="energy-legend">
      {series.sources.map((source) => (
        <li key={source} data-testid="energy-legend-source" data-source={source} data-class={sourceClass(source)}>
          <span className={`energy-swatch energy-src-${source}`} aria-hidden="true" />
          {sourceLegend(source)}
        </li>
      ))}
      <li>
        <span className="energy-swatch-line" aria-hidden="true" /> max watts; J/request (dashed where modelled)
      </li>
      {series.gaps.length > 0 && (
        <li data-testid="energy-legend-gap">
          <span className="energy-swatch energy-gap" aria-hidden="true" /> no data
        </li>
      )}
    </ul>
  );
}
