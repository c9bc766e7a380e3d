// Two figures per UTC day as a uPlot line chart: a link's clicks and QR scans, a page's views and
// block clicks. The chart is an image with a summary for screen readers (the same numbers are in
// a table next to it); the legend is plain text and the hover readout is for eyes only.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { LinkAnalytics } from '../../api/types.ts';
import { formatDay } from '../../lib/dates.ts';
import { formatCount } from '../../lib/format.ts';
import { drawDailyPlot } from './daily-plot.ts';

export const CLICKS_COLOR = '#2f4fd8';
export const SCANS_COLOR = '#c2410c';

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

export function DailyChart({
  days,
  lines,
  summary,
}: {
  days: string[];
  lines: [DailyLine, DailyLine];
  summary: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const [first, second] = lines;

  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    // Dots only while there is room for them (about 12 px a day).
    const dots = el.clientWidth / Math.max(days.length, 1) >= 12;
    return drawDailyPlot(el, {
      days,
      values: [first.values, second.values],
      series: [
        { label: first.label, stroke: first.color, width: 2, fill: `${first.color}14`, points: { show: dots } },
        { label: second.label, stroke: second.color, width: 2, dash: [6, 4], points: { show: dots } },
      ],
      minWidth: 280,
      heights: { narrow: 220, wide: 280 },
      onHover: setHover,
    });
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
          <span
            className="legend-swatch legend-swatch-dashed"
            style={{ borderColor: second.color }}
            aria-hidden="true"
          />
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
