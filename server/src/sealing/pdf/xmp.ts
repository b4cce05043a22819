/**
 * The XMP metadata packet of the final PDF (ISO 19005-3 6.6): the PDF/A identification (part 3,
 * conformance B) and the same title, author, subject, keywords, producer, creator tool, dates and
 * language as the Info dictionary, since PDF/A requires the two to agree. Only predefined schemas
 * (dc, xmp, pdf, pdfaid, xmpMM), so no extension schema is needed.
 */

/** What the Info dictionary and the XMP both say: one source for both. */
export interface DocumentMetadata {
  readonly title: string;
  readonly author: string;
  readonly subject: string;
  readonly keywords: string;
  readonly producer: string;
  readonly creatorTool: string;
  /** Creation and modification time (the completion time): UTC in both places. */
  readonly date: Date | null;
  readonly language: string;
  /** The document's identifier (hex), also the trailer /ID. */
  readonly documentId: string;
}

const escapeXml = (s: string): string => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** ISO 8601 in UTC without milliseconds, the instant pdf-lib writes as D:YYYYMMDDHHmmSSZ. */
const xmpDate = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

const alt = (tag: string, value: string) => `<${tag}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(value)}</rdf:li></rdf:Alt></${tag}>`;

/** The packet as UTF-8 bytes (stored uncompressed, as PDF/A readers expect). */
export function xmpPacket(m: DocumentMetadata): Uint8Array {
  const dates = m.date
    ? [
        `<xmp:CreateDate>${xmpDate(m.date)}</xmp:CreateDate>`,
        `<xmp:ModifyDate>${xmpDate(m.date)}</xmp:ModifyDate>`,
        `<xmp:MetadataDate>${xmpDate(m.date)}</xmp:MetadataDate>`,
      ]
    : [];
  const body = [
    '<rdf:Description rdf:about=""',
    ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"',
    ' xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"',
    ' xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">',
    '<pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance>',
    alt('dc:title', m.title),
    `<dc:creator><rdf:Seq><rdf:li>${escapeXml(m.author)}</rdf:li></rdf:Seq></dc:creator>`,
    alt('dc:description', m.subject),
    `<dc:language><rdf:Bag><rdf:li>${escapeXml(m.language)}</rdf:li></rdf:Bag></dc:language>`,
    '<dc:format>application/pdf</dc:format>',
    `<pdf:Keywords>${escapeXml(m.keywords)}</pdf:Keywords>`,
    `<pdf:Producer>${escapeXml(m.producer)}</pdf:Producer>`,
    `<xmp:CreatorTool>${escapeXml(m.creatorTool)}</xmp:CreatorTool>`,
    ...dates,
    `<xmpMM:DocumentID>uuid:${uuidOf(m.documentId)}</xmpMM:DocumentID>`,
    '</rdf:Description>',
  ];
  const xml =
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>\n' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n' +
    body.join('\n') +
    '\n</rdf:RDF></x:xmpmeta>\n<?xpacket end="r"?>';
  return new TextEncoder().encode(xml);
}

/** A UUID-shaped rendering of the first 16 bytes of the document ID. */
const uuidOf = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
