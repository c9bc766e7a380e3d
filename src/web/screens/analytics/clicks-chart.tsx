// Clicks and QR scans per day as a uPlot line chart. The chart is an image with a summary for
// screen readers (the same numbers are in a table next to it); the legend is plain text and the
// hover readout is for eyes only.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { LinkAnalytics } from '../../api/types.ts';
import { formatDay } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';

export const CLICKS_COLOR = '#2f4fd8';
export const SCANS_COLOR = '#c2410c';

const INTEGER_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

export function ClicksChart({ series, summary }: { series: LinkAnalytics['series']; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = series.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, series.map((d) => d.clicks), series.map((d) => d.scans)];
    const height = () => (el.clientWidth < 500 ? 220 : 280);
    // Dots only while there is room for them (about 12 px a day).
    const dots = el.clientWidth / Math.max(series.length, 1) >= 12;
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: height(),
        // Days are UTC days: label them as such wherever the browser is.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { size: 7 } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
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
          { label: 'Clicks', stroke: CLICKS_COLOR, width: 2, fill: 'rgba(47, 79, 216, 0.08)', points: { show: dots } },
          { label: 'QR scans', stroke: SCANS_COLOR, width: 2, dash: [6, 4], points: { show: dots } },
        ],
        hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 280), height: height() }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series]);

  const point = hover !== null ? series[hover] : undefined;
  return (
    <div className="chart">
      <div className="chart-legend">
        <span className="legend-item">
          <span className="legend-swatch" style={{ background: CLICKS_COLOR }} aria-hidden="true" />
          Clicks
        </span>
        <span className="legend-item">
          <span className="legend-swatch legend-swatch-dashed" style={{ borderColor: SCANS_COLOR }} aria-hidden="true" />
          QR scans
        </span>
        <span className="chart-readout" aria-hidden="true">
          {point ? `${formatDay(point.day)}: ${formatCount(point.clicks)} clicks, ${formatCount(point.scans)} scans` : 'Point at the chart for one day’s figures'}
        </span>
      </div>
      <div ref={box} className="chart-canvas" role="img" aria-label={summary} />
    </div>
  );
}
