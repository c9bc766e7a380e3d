// Conversions per UTC day as a uPlot chart, as the link analytics draw clicks
// (screens/analytics/clicks-chart.tsx): an image with a summary for screen readers, the same
// numbers in a table beside it, a hover readout for eyes only.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ConversionDay } from '../../api/types.ts';
import { money } from '../../lib/conversions.ts';
import { formatDay } from '../../lib/dates.ts';
import { formatCount, plural } from '../../lib/format.ts';
import { CLICKS_COLOR } from '../analytics/clicks-chart.tsx';

const INTEGER_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

export function ConversionsChart({ series, summary }: { series: ConversionDay[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = series.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, series.map((d) => d.conversions)];
    const height = () => (el.clientWidth < 500 ? 200 : 260);
    // Bars while there is room for them (2 px a day), a line after.
    const perDay = el.clientWidth / Math.max(series.length, 1);
    const bars = perDay >= 2 ? uPlot.paths.bars!({ size: [0.7, 28, 1], align: 0 }) : undefined;
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 260),
        height: height(),
        // Days are UTC days: label them as such wherever the browser is.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { size: 7 } },
        scales: {
          // Half a day of room on either side, so the first and last bars are whole.
          x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
        },
        axes: [
          { stroke: '#475569', grid: { stroke: '#e2e8f0' }, ticks: { stroke: '#cbd5e1' } },
          {
            stroke: '#475569',
            grid: { stroke: '#e2e8f0' },
            ticks: { stroke: '#cbd5e1' },
            incrs: INTEGER_STEPS,
            values: (_u, splits) => splits.map((v) => formatCount(v)),
            size: 56,
          },
        ],
        series: [
          {},
          bars
            ? { label: 'Conversions', stroke: CLICKS_COLOR, fill: 'rgba(47, 79, 216, 0.55)', width: 0, paths: bars, points: { show: false } }
            : { label: 'Conversions', stroke: CLICKS_COLOR, width: 2, fill: 'rgba(47, 79, 216, 0.08)', points: { show: false } },
        ],
        hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 260), height: height() }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
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
