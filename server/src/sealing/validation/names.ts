/**
 * Distinguished names as people read them. The report keeps each certificate's subject and issuer as
 * the raw DN (RFC 4514 escapes, most general attribute first, as node:crypto prints it) so a tool can
 * compare them; a page or a text report shows readableName: the values unescaped, the most specific
 * (CN) first, without the attribute types.
 */
import 'reflect-metadata';
import { Name } from '@peculiar/x509';

/** "O=Tawqi, CN=Tawqi seal (built-in\, not publicly trusted)" → "Tawqi seal (built-in, not publicly trusted), Tawqi". */
export function readableName(dn: string): string {
  try {
    const rdns = new Name(dn).toJSON();
    const parts = rdns.reverse().map((rdn) => Object.values(rdn).flat().join(' + '));
    return parts.filter((p) => p !== '').join(', ') || dn;
  } catch {
    // Not parseable as a DN (it always is when it comes from a certificate): show it as it is.
    return dn;
  }
}
