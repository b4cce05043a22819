import pino, { type Logger } from 'pino';

/** JSON logs. Headers that carry secrets are redacted even if someone logs a request object. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.secret', '*.pin', '*.password', '*.access_code', '*.otp'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
