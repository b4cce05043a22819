/**
 * Apache PDFBox Preflight 2.0 (Debian's libpdfbox2-java), the strongest PDF/A validator either of
 * our registries holds: veraPDF, the reference for PDF/A-2 and -3, is in neither. Preflight checks a
 * file against ISO 19005-1 (PDF/A-1b): file structure and syntax, fonts (embedded, their widths
 * against the font programs, encodings and ToUnicode), colour (output intent and ICC profile),
 * graphics, annotations, actions, and XMP metadata (well-formed, PDF/A identification, agreement
 * with the Info dictionary).
 *
 * Our files are PDF/A-3b, which keeps every PDF/A-1b rule except those ISO 19005-2/3 relax.
 * PDF_A3_RELAXED names those, each by Preflight's code and message, so that a report holding
 * anything else is a real failure.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const JARS = ['preflight', 'pdfbox2', 'fontbox2', 'xmpbox', 'commons-logging', 'javax.activation', 'jaxb-api'];
const INSTALL = 'apt-get install -y default-jre-headless libpdfbox2-java libactivation-java libjaxb-api-java';

export interface PreflightError {
  code: string;
  message: string;
}

/** PDF/A-1 rules that PDF/A-3 (ISO 19005-3, built on 19005-2) no longer has. */
export const PDF_A3_RELAXED: readonly { code: string; message: RegExp; why: string }[] = [
  { code: '1.4.7', message: /EmbeddedFile entry is present in the Names dictionary/, why: '19005-3 6.8: embedded files allowed' },
  { code: '1.2.9', message: /EmbeddedFile entry is present in a FileSpecification/, why: '19005-3 6.8: embedded files allowed' },
  { code: '1.4', message: /cross reference streams are not allowed/, why: '19005-2 6.1.4: cross-reference streams allowed' },
  { code: '4.1.2', message: /\b(CA|ca) entry in a ExtGState is invalid/, why: '19005-2 6.4: transparency allowed' },
  { code: '3.1.11', message: /The CIDSet entry is missing/, why: '19005-2 6.2.11.4.2: CIDSet optional' },
  { code: '7.11.2', message: /part must be 1/, why: 'the identification says part 3' },
];

/** Run Preflight on the PDF; errors as it lists them ("code : message"). */
export async function preflight(pdf: Uint8Array): Promise<{ valid: boolean; errors: PreflightError[]; output: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-preflight-'));
  try {
    const file = path.join(dir, 'document.pdf');
    writeFileSync(file, pdf);
    const classpath = JARS.map((jar) => `/usr/share/java/${jar}.jar`).join(':');
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        'java',
        ['-cp', classpath, 'org.apache.pdfbox.preflight.Validator_A1b', file],
        { timeout: 120_000 },
        (error, stdout, stderr) => {
          const text = `${stdout}${stderr}`;
          if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') reject(new Error(`java is not installed (${INSTALL})`));
          else if (/NoClassDefFoundError|ClassNotFoundException|Could not find or load main class/.test(text))
            reject(new Error(`PDFBox Preflight could not start (${INSTALL}):\n${text}`));
          else resolve(text);
        },
      );
    });
    if (/is a valid PDF\/A-1b file/.test(output)) return { valid: true, errors: [], output };
    if (!/is not a valid PDF\/A-1b file/.test(output)) throw new Error(`unexpected Preflight output:\n${output}`);
    const errors = [...output.matchAll(/^(\d+(?:\.\d+)*) : (.*)$/gm)].map((m) => ({ code: m[1]!, message: m[2]! }));
    return { valid: false, errors, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The errors no PDF/A-3 relaxation covers. */
export const beyondPdfA3 = (errors: readonly PreflightError[]) =>
  errors.filter((e) => !PDF_A3_RELAXED.some((r) => r.code === e.code && r.message.test(e.message)));
