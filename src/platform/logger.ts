import pino from 'pino';
import { activeLogFields } from './tracing/tracing';

/**
 * Structured JSON logs, or readable lines (pino-pretty) when stdout is a terminal: a person at
 * `npm start` reads them, a collector gets JSON. Keys, tokens and personal data are redacted
 * wherever they appear. Until a process has read its configuration (`configureLogging`), the
 * level comes from LOG_LEVEL. LOG_FORMAT=json|pretty overrides the choice.
 */
const pretty = process.env.LOG_FORMAT ? process.env.LOG_FORMAT === 'pretty' : process.stdout.isTTY === true;

export const logger = pino({
  level: process.env.LOG_LEVEL || 'info',
  // Every line written while a traced request is served names its trace and span (nothing with tracing off).
  mixin: activeLogFields,
  redact: {
    paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.key', '*.apiKey', '*.email', '*.phone'],
    censor: '[redacted]',
  },
  ...(pretty
    ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }
    : {}),
});

export type Logger = typeof logger;

/**
 * The access lines' logger (platform/http/access-log.ts): the same output without redaction. Those
 * lines hold only the fields that module writes (route, path without its query, status, times,
 * ids), never a key or personal data, and redaction copies each object field of every line it
 * might censor, on every request. A line carrying an error goes through `logger`.
 */
export const accessLogger = logger.child({}, { redact: [] });

/** Applies the configuration's logging settings to the process's logger and the access lines' (children made later follow). */
export function configureLogging(settings: { level: string }): void {
  logger.level = settings.level;
  accessLogger.level = settings.level;
}
