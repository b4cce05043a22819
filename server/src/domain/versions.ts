/**
 * Dated API versions (spec part 9). A request's version comes from its Svc-Version header, else the
 * account's pin, else the default. Responses on a deprecated version carry Svc-Deprecation.
 */
export interface ApiVersion {
  date: string;
  /** When set, the version is deprecated and removed in a later dated version after this day. */
  sunset?: string;
  /** What changed in this version, for the changelog of the API reference (/docs). */
  changes: { ar: readonly string[]; en: readonly string[] };
}

export const API_VERSIONS: readonly ApiVersion[] = [
  {
    date: '2026-07-01',
    changes: {
      ar: [
        'المبالغ بعملة المحفظة: ‎{amount, currency}‎ بدل الحقول ‎amount_egp‎ وأخواتها (في ‎/usage‎ و‎/balance‎ وتكلفة الطلبات والجلسات والدفعات).',
        'الإصدار الافتراضي للحسابات الجديدة.',
      ],
      en: [
        'Amounts in the wallet currency: {amount, currency} replaces amount_egp and its siblings (in /usage, /balance and the cost of requests, sessions and bulk sends).',
        'The default version for new accounts.',
      ],
    },
  },
  // The version before the wallet-currency amounts (amount_egp & co. were removed in 2026-07-01);
  // its responses are the same today and carry the deprecation header until the sunset.
  {
    date: '2026-01-01',
    sunset: '2027-01-01',
    changes: {
      ar: ['أول إصدار مؤرَّخ. متقادم: يُجاب عنه اليوم كما يُجاب عن 2026-07-01، مع ترويسة Svc-Deprecation حتى تاريخ الإيقاف 2027-01-01.'],
      en: [
        'The first dated version. Deprecated: answered today as 2026-07-01 is, with the Svc-Deprecation header, until its sunset on 2027-01-01.',
      ],
    },
  },
];

export function findVersion(date: string): ApiVersion | undefined {
  return API_VERSIONS.find((v) => v.date === date);
}

export function deprecationHeader(v: ApiVersion): string | null {
  return v.sunset ? `version="${v.date}"; sunset="${v.sunset}"` : null;
}
