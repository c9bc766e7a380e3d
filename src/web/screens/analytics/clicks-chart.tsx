// Two figures per UTC day as a uPlot line chart: a link's clicks and QR scans, a page's views and
// block clicks. The chart is an image with a summary for screen readers (the same numbers are in
// a table next to it); the legend is plain text and the hover readout is for eyes only.
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { LinkAnalytics } from '../../api/types.ts';
import { formatDay } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';

export const CLICKS_COLOR = '#2f4fd8';
export const SCANS_COLOR = '#c2410c';

const INTEGER_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

/** A line of the chart: the first is solid and filled, the second dashed. Pass them memoised: new ones draw the chart again. */
export interface DailyLine {
  /** The legend's name ("Clicks"). */
  label: string;
  /** The readout's word for it ("clicks"). */
  unit: string;
  color: string;
  values: number[];
}

export function ClicksChart({ series, summary }: { series: LinkAnalytics['series']; summary: string }) {
  // The chart is drawn again only when the figures change.
  const days = useMemo(() => series.map((d) => d.day), [series]);
  const lines = useMemo<[DailyLine, DailyLine]>(
    () => [
      { label: 'Clicks', unit: 'clicks', color: CLICKS_COLOR, values: series.map((d) => d.clicks) },
      { label: 'QR scans', unit: 'scans', color: SCANS_COLOR, values: series.map((d) => d.scans) },
    ],
    [series],
  );
  return <DailyChart days={days} lines={lines} summary={summary} />;
}

export function DailyChart({ days, lines, summary }: { days: string[]; lines: [DailyLine, DailyLine]; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const [first, second] = lines;

  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, first.values, second.values];
    const height = () => (el.clientWidth < 500 ? 220 : 280);
    // Dots only while there is room for them (about 12 px a day).
    const dots = el.clientWidth / Math.max(days.length, 1) >= 12;
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
          { label: first.label, stroke: first.color, width: 2, fill: `${first.color}14`, points: { show: dots } },
          { label: second.label, stroke: second.color, width: 2, dash: [6, 4], points: { show: dots } },
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
  }, [days, first, second]);

  const day = hover !== null ? days[hover] : undefined;
  return (
    <div className="chart">
      <div className="chart-legend">
        <span className="legend-item">
          <span className="legend-swatch" style={{ background: first.color }} aria-hidden="true" />
          {first.label}
        </span>
        <span className="legend-item">
          <span className="legend-swatch legend-swatch-dashed" style={{ borderColor: second.color }} aria-hidden="true" />
          {second.label}
        </span>
        <span className="chart-readout" aria-hidden="true">
          {day !== undefined && hover !== null
            ? `${formatDay(day)}: ${formatCount(first.values[hover])} ${first.unit}, ${formatCount(second.values[hover])} ${second.unit}`
            : 'Point at the chart for one day’s figures'}
        </span>
      </div>
      <div ref={box} className="chart-canvas" role="img" aria-label={summary} />
    </div>
  );
}
