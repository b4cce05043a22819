/**
 * Dated API versions (spec part 9). A request's version comes from its Svc-Version header, else the
 * account's pin, else the default. Responses on a deprecated version carry Svc-Deprecation.
 */
export interface ApiVersion {
  date: string;
  /** When set, the version is deprecated and removed in a later dated version after this day. */
  sunset?: string;
}

export const API_VERSIONS: readonly ApiVersion[] = [
  { date: '2026-07-01' },
  // The version before the wallet-currency amounts (amount_egp & co. were removed in 2026-07-01);
  // its responses are the same today and carry the deprecation header until the sunset.
  { date: '2026-01-01', sunset: '2027-01-01' },
];

export function findVersion(date: string): ApiVersion | undefined {
  return API_VERSIONS.find((v) => v.date === date);
}

export function deprecationHeader(v: ApiVersion): string | null {
  return v.sunset ? `version="${v.date}"; sunset="${v.sunset}"` : null;
}
