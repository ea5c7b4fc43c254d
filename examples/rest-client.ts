/**
 * A typed REST client with no hand-written types: `rest-api.d.ts` is generated from the committed
 * OpenAPI document by openapi-typescript (`npm run codegen`), and openapi-fetch checks every path,
 * parameter and body against it. JSON filters are typed as their JSON text (the document says so
 * with `content: application/json`), so the compiler asks for `JSON.stringify` where a generic
 * serializer would otherwise send `?data__contains[vehicle]=...`. The REST tests run this client.
 *
 *   VR_API_URL=http://localhost:4000 VR_API_KEY=vr_live_... npx tsx examples/rest-client.ts client@example.com
 */
import createClient from 'openapi-fetch';
import type { paths } from './rest-api';

export function restClient(connection: { baseUrl: string; apiKey: string }) {
  return createClient<paths>({ baseUrl: connection.baseUrl, headers: { 'x-api-key': connection.apiKey } });
}

export type RestClient = ReturnType<typeof restClient>;

/** The newest remote reports whose document contains `fragment` (PostgreSQL `@>`). */
export async function remoteReportsContaining(client: RestClient, fragment: Record<string, unknown>, limit = 20) {
  const { data, error, response } = await client.GET('/public/reports/', {
    params: { query: { type: 'remote', data__contains: JSON.stringify(fragment), limit } },
  });
  if (error) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
  return data;
}

/** Invites a client to inspect their car, by e-mail; retried safely with the same idempotency key. */
export async function inviteByEmail(client: RestClient, lead: { dealership: string; name: string; email: string; idempotencyKey: string }) {
  const { data, error, response } = await client.POST('/public/reports/create-lead', {
    params: { header: { 'Idempotency-Key': lead.idempotencyKey } },
    body: { dealership: lead.dealership, name: lead.name, email: lead.email, sendEmail: true, lang: 'en' },
  });
  if (error) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
  return data;
}

async function main(): Promise<void> {
  const client = restClient({ baseUrl: process.env.VR_API_URL ?? 'http://localhost:4000', apiKey: process.env.VR_API_KEY ?? '' });
  const email = process.argv[2] ?? 'client@example.com';
  const page = await remoteReportsContaining(client, { metadata: { individual: { email } } }, 5);
  console.log(`${page.total} remote reports for ${email}; the newest:`);
  for (const item of page.items) console.log(`  ${item.created_at} ${item.token} ${item.data.vehicle.vin ?? '-'}`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
