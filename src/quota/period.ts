// Usage is counted per billing period: the calendar month in UTC. Pure.

export interface BillingPeriod {
  /** "2025-03": the key usage is counted under. */
  key: string;
  start: string;
  /** Exclusive: the first instant of the next period. */
  end: string;
}

export function billingPeriod(now: number): BillingPeriod {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  return {
    key: `${y}-${String(m + 1).padStart(2, '0')}`,
    start: new Date(Date.UTC(y, m, 1)).toISOString(),
    end: new Date(Date.UTC(y, m + 1, 1)).toISOString(),
  };
}
