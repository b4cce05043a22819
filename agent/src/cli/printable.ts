/**
 * Text from outside the agent (a document title and ids from the server's ticket, certificate and
 * token names from the token, an Origin header from any local client) as it may be written to the
 * terminal. Escaped as \u{…}: control characters (C0, DEL, C1: an escape sequence could redraw the
 * screen, a line break could print a line that passes for one of the agent's own, e.g. a second
 * "Server:" under the real one), line and paragraph separators, the bidi embeddings, overrides and
 * isolates (they reorder what follows them on the line), and lone surrogates. Letters of every
 * script, combining marks and the LRM/RLM/ALM marks pass unchanged: an Arabic title reads as typed.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`);
}
