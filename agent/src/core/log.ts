/** A small logger: one line per event on stderr. Never given PINs, tickets or document contents. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * JSON.stringify escapes C0 controls and lone surrogates but not DEL, the C1 controls (U+009B is a
 * CSI to a terminal), the line separators or the bidi overrides; logged values can come from any
 * local client (an Origin header), and the log goes to a terminal: escaped too (still valid JSON).
 */
const UNESCAPED = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeRest = (json: string): string => json.replace(UNESCAPED, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => void process.stderr.write(l)): Logger {
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    write(escapeRest(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })) + '\n');
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
