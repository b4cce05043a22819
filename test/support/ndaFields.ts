/** Values for every field of the built-in Arabic NDA template (tpl_nda_ar), as the sealing and verification tests fill it. */
export const NDA_FIELDS = {
  effective_date: '2026-07-01',
  party_a_name: 'شركة النيل للتجارة',
  party_a_address: 'القاهرة',
  party_b_name: 'Delta Trading LLC',
  party_b_address: 'Giza',
  purpose: 'تقييم شراكة',
  term_years: '2',
  notice_days: '30',
  confidentiality_years: '3',
  governing_law: 'القانون المصري',
  jurisdiction: 'القاهرة',
};
