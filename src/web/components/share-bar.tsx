// A row's share of a total as a bar and its percentage. The bar is decoration (the percentage says
// it); a share above nothing never draws thinner than 1% nor reads "0%".
export function ShareBar({ count, total }: { count: number; total: number }) {
  const share = total ? (count / total) * 100 : 0;
  return (
    <>
      <span className="bar" aria-hidden="true">
        <span className="bar-fill" style={{ width: `${Math.max(share, 1)}%` }} />
      </span>
      <span className="bar-label">{share < 1 && share > 0 ? '<1' : Math.round(share)}%</span>
    </>
  );
}
