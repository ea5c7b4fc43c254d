/**
 * What the request generators draw on: the schema the running server introspects to, and real
 * identifiers and keys of the seeded database (so that many requests get past validation and
 * reach the services), one organization's and the other's.
 */
import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { issueApiKey, revokeApiKey } from '../../src/features/auth/api-keys';
import type { TestServer } from '../support/server';

export interface FuzzContext {
  schema: GraphQLSchema;
  keys: {
    /** the organization the requests act for */
    own: string;
    /** the other demo organization */
    other: string;
    revoked: string;
  };
  /** identifiers of both organizations, own first */
  ids: {
    organization: string[];
    entity: string[];
    dealership: string[];
    user: string[];
    report: string[];
  };
  /** real filter values: VINs, plates, names */
  texts: string[];
}

export async function introspectSchema(url: string, apiKey: string): Promise<GraphQLSchema> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const { data } = (await response.json()) as { data: IntrospectionQuery };
  return buildClientSchema(data);
}

export async function buildFuzzContext(server: TestServer): Promise<FuzzContext> {
  const { dataset } = server;
  const [own, other] = dataset.organizations;
  const ownFirst = <T extends { organization_id: string }>(rows: T[]) => [
    ...rows.filter((row) => row.organization_id === own!.id),
    ...rows.filter((row) => row.organization_id !== own!.id),
  ];
  const revoked = await issueApiKey(server.db.prisma, own!.id, 'fuzz revoked key');
  await revokeApiKey(server.db.prisma, revoked.id);
  return {
    schema: await introspectSchema(server.url, server.keys[0]!),
    keys: { own: server.keys[0]!, other: server.keys[1]!, revoked: revoked.key },
    ids: {
      organization: [own!.id, other!.id],
      entity: ownFirst(dataset.entities).map((e) => e.id),
      dealership: ownFirst(dataset.dealerships).map((d) => d.id),
      user: ownFirst(dataset.users).map((u) => u.id),
      report: ownFirst(dataset.reports).map((r) => r.token),
    },
    texts: [
      ...dataset.reports
        .slice(0, 20)
        .flatMap((r) => [r.data.vehicle.vin, r.data.vehicle.license?.number, r.data.metadata.individual?.name]),
      ...dataset.dealerships.map((d) => d.name),
      ...dataset.organizations.map((o) => o.name),
    ].filter((text): text is string => typeof text === 'string' && text !== ''),
  };
}

/** The identifiers an argument of this name takes (`dealership_id` → dealerships), or all of them. */
export function idsForArgument(context: FuzzContext, name: string): string[] {
  const { ids } = context;
  if (/dealership/.test(name)) return ids.dealership;
  if (/^(user_id|profile_id)$/.test(name)) return ids.user;
  if (/^(report_id|token|counter_id)$/.test(name)) return ids.report;
  if (name === 'organization_id') return ids.organization;
  if (name === 'entity_id') return ids.entity;
  return [...ids.report, ...ids.user, ...ids.dealership, ...ids.entity, ...ids.organization];
}
