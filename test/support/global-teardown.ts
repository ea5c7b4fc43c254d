/** jest globalTeardown: stop what globalSetup started (a private PostgreSQL, a redis-server). */
export default async function globalTeardown(): Promise<void> {
  await globalThis.vrProvisioned?.stop();
}
