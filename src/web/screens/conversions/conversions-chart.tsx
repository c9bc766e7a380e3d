// Conversions per UTC day as a uPlot chart, as the link analytics draw clicks
// (screens/analytics/clicks-chart.tsx): an image with a summary for screen readers, the same
// numbers in a table beside it, a hover readout for eyes only.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import type { ConversionDay } from '../../api/types.ts';
import { money } from '../../lib/conversions.ts';
import { formatDay } from '../../lib/dates.ts';
import { plural } from '../../lib/format.ts';
import { drawDailyPlot } from '../analytics/daily-plot.ts';
import { CLICKS_COLOR } from '../analytics/clicks-chart.tsx';

export function ConversionsChart({ series, summary }: { series: ConversionDay[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    // Bars while there is room for them (2 px a day), a line after.
    const perDay = el.clientWidth / Math.max(series.length, 1);
    const bars = perDay >= 2 ? uPlot.paths.bars!({ size: [0.7, 28, 1], align: 0 }) : undefined;
    const line: uPlot.Series = bars
      ? { stroke: CLICKS_COLOR, fill: 'rgba(47, 79, 216, 0.55)', width: 0, paths: bars }
      : { stroke: CLICKS_COLOR, width: 2, fill: 'rgba(47, 79, 216, 0.08)' };
    return drawDailyPlot(el, {
      days: series.map((d) => d.day),
      values: [series.map((d) => d.conversions)],
      series: [{ label: 'Conversions', ...line, points: { show: false } }],
      minWidth: 260,
      heights: { narrow: 200, wide: 260 },
      // Half a day of room on either side, so the first and last bars are whole.
      xRange: (_u, min, max) => [min - 43_200, max + 43_200],
      onHover: setHover,
    });
  }, [series]);

  const point = hover !== null ? series[hover] : undefined;
  const readout = point
    ? `${formatDay(point.day)}: ${plural(point.conversions, 'conversion')}${point.value.length ? `, ${point.value.map((v) => money(v.valueMinor, v.currency)).join(' + ')}` : ''}`
    : 'Point at the chart for one day’s figures';
  return (
    <div className="chart">
      <div className="chart-legend">
        <span className="legend-item">
          <span className="legend-swatch" style={{ background: CLICKS_COLOR }} aria-hidden="true" />
          Conversions
        </span>
        <span className="chart-readout" aria-hidden="true">
          {readout}
        </span>
      </div>
      <div ref={box} className="chart-canvas" role="img" aria-label={summary} />
    </div>
  );
}
