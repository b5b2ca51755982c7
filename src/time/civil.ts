// Days since the Unix epoch → proleptic Gregorian year, month (1–12), day (1–31), by
// Howard Hinnant's days_from_civil inverse. Pure integer arithmetic: used where Date
// objects cost too much per call (timestamp formatting on capture, relative dates in
// flag evaluation).
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

export function civilFromDays(days: number): CivilDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
