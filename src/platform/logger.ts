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

/** Applies the configuration's logging settings to the process's logger (and so to every child). */
export function configureLogging(settings: { level: string }): void {
  logger.level = settings.level;
}
