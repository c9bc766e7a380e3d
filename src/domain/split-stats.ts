// How sure a split's difference is (openapi/components/schemas/RoutingReport.yaml): a two-sided
// two-proportion z-test (pooled) between the two best conversion rates, and the clicks per
// variant a difference that size needs at 95% confidence and 80% power. The normal CDF is
// simple-statistics' error function.
import { errorFunction } from 'simple-statistics';

export interface VariantTally {
  id: string;
  clicks: number;
  conversions: number;
}

export interface Comparison {
  method: 'two-proportion z-test';
  leaderId: string;
  runnerUpId: string;
  pValue: number;
  confidence: number;
  samplePerVariant: number | null;
}

const Z_ALPHA = 1.959963984540054; // two-sided 95%
const Z_POWER = 0.8416212335729143; // 80% power
const normalCdf = (z: number) => 0.5 * (1 + errorFunction(z / Math.SQRT2));
export const rateOf = (t: VariantTally) => (t.clicks > 0 ? Math.min(1, t.conversions / t.clicks) : 0);

/** The comparison of the two best rates (ties: more clicks first); null until both have clicks. */
export function compareVariants(tallies: VariantTally[]): Comparison | null {
  const ranked = tallies.filter((t) => t.clicks > 0).sort((a, b) => rateOf(b) - rateOf(a) || b.clicks - a.clicks);
  if (ranked.length < 2) return null;
  const [a, b] = ranked;
  const p1 = rateOf(a);
  const p2 = rateOf(b);
  const pooled = (Math.min(a.conversions, a.clicks) + Math.min(b.conversions, b.clicks)) / (a.clicks + b.clicks);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.clicks + 1 / b.clicks));
  const z = se === 0 ? 0 : (p1 - p2) / se;
  const pValue = se === 0 ? 1 : Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
  const diff = p1 - p2;
  const mean = (p1 + p2) / 2;
  const samplePerVariant =
    diff === 0
      ? null
      : Math.ceil(
          (Z_ALPHA * Math.sqrt(2 * mean * (1 - mean)) + Z_POWER * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 /
            diff ** 2,
        );
  return {
    method: 'two-proportion z-test',
    leaderId: a.id,
    runnerUpId: b.id,
    pValue: round(pValue),
    confidence: round(1 - pValue),
    samplePerVariant,
  };
}

/** A figure to six decimals, as the report gives rates and p-values. */
export const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The winner of an ended split: the most clicks (`clicks`), or the highest conversion rate, then
 * more conversions (`conversions`); ties go to the earlier variant.
 */
export function winnerOf(metric: 'clicks' | 'conversions', tallies: VariantTally[]): string | null {
  let best: VariantTally | null = null;
  for (const t of tallies) {
    if (best === null) best = t;
    else if (metric === 'clicks' ? t.clicks > best.clicks : better(t, best)) best = t;
  }
  return best?.id ?? null;
}
const better = (t: VariantTally, best: VariantTally) =>
  rateOf(t) > rateOf(best) || (rateOf(t) === rateOf(best) && t.conversions > best.conversions);
