const count = new Intl.NumberFormat();

export function formatCount(n: number): string {
  return count.format(n);
}

/** "1–25 of 1,234", "26–50 of 10,000+" (the API counts up to 10,000). */
export function pageRange(page: number, limit: number, shown: number, total: number, capped: boolean): string {
  const first = (page - 1) * limit + 1;
  const last = first + shown - 1;
  // A total below what is on screen can only be stale; never print an impossible range.
  const counted = Math.max(total, last);
  const of = capped ? `${formatCount(counted)}+` : formatCount(counted);
  return `${formatCount(first)}–${formatCount(last)} of ${of}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

const ROLE_NAMES = { OWNER: 'Owner', ADMIN: 'Admin', MEMBER: 'Member', ANALYST: 'Analyst' } as const;
export const roleName = (role: keyof typeof ROLE_NAMES) => ROLE_NAMES[role];

const PLAN_NAMES = { free: 'Free', pro: 'Pro', growth: 'Growth', business: 'Business' } as const;
export const planName = (plan: keyof typeof PLAN_NAMES) => PLAN_NAMES[plan];
