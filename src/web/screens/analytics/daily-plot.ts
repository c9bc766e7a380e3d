// The uPlot set-up the dashboard's per-day charts share (clicks and scans, conversions): UTC days
// on x, whole numbers from 0 on y, the same axes and cursor, and a size that follows the box.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatCount } from '../../lib/format.ts';

const INTEGER_STEPS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000, 50_000, 100_000,
  250_000, 500_000, 1_000_000,
];

export interface DailyPlot {
  /** The UTC days ("2026-01-31"), one per value. */
  days: string[];
  /** The lines' values, each one per day. */
  values: number[][];
  /** The lines, in the order of `values` (uPlot's x series comes first on its own). */
  series: uPlot.Series[];
  /** The smallest width drawn, and the height below and from 500 px wide. */
  minWidth: number;
  heights: { narrow: number; wide: number };
  /** Room on x beyond the first and last days (the default: none). */
  xRange?: uPlot.Scale.Range;
  onHover: (index: number | null) => void;
}

/** Draws the chart into `el` and keeps its size; returns what removes it (an effect's clean-up). */
export function drawDailyPlot(el: HTMLElement, chart: DailyPlot): () => void {
  const xs = chart.days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  const data: uPlot.AlignedData = [xs, ...chart.values];
  const width = () => Math.max(el.clientWidth, chart.minWidth);
  const height = () => (el.clientWidth < 500 ? chart.heights.narrow : chart.heights.wide);
  const plot = new uPlot(
    {
      width: width(),
      height: height(),
      // Days are UTC days: label them as such wherever the browser is.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 7 } },
      scales: {
        x: chart.xRange ? { time: true, range: chart.xRange } : { time: true },
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
      series: [{}, ...chart.series],
      hooks: { setCursor: [(u) => chart.onHover(u.cursor.idx ?? null)] },
    },
    data,
    el,
  );
  const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: height() }));
  resize.observe(el);
  return () => {
    resize.disconnect();
    plot.destroy();
  };
}
