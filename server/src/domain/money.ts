/** Amounts are stored as integer minor units and shown as {amount, currency} with a decimal amount. */
export interface Amount {
  amount: number;
  currency: string;
}

export function amount(minor: number, currency: string): Amount {
  return { amount: minor / 100, currency };
}

/** Parse a decimal amount such as "250" or "12.50" into minor units; null when it is not one. */
export function parseMinor(text: string): number | null {
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return null;
  const [whole, frac = ''] = text.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}
