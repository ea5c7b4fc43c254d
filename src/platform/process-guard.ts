/**
 * The process outlives any rejection a request can cause. Node ends the process on an unhandled
 * rejection by default: one tenant's request would then take every other tenant's requests on
 * this instance down with it. graphql-js 16, for one, abandons the promises of a list's earlier
 * items when a later item fails synchronously; their rejections reach no handler. Such a
 * rejection is logged and counted (`vr_unhandled_rejections_total`), never fatal. An uncaught
 * exception still ends the process: its state is unknown after one.
 */
import { Counter } from 'prom-client';
import type { Logger } from './logger';
import { processMetricsRegistry } from './metrics/process-metrics';

let installed = false;

export function surviveUnhandledRejections(log: Logger): void {
  if (installed) return;
  installed = true;
  const rejections = new Counter({
    name: 'vr_unhandled_rejections_total',
    help: 'Promise rejections that reached no handler (logged, never fatal): each one is a bug to fix.',
    registers: [processMetricsRegistry()],
  });
  process.on('unhandledRejection', (reason) => {
    rejections.inc();
    log.error({ err: reason }, 'unhandled promise rejection (the process goes on)');
  });
}
