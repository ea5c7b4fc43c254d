/**
 * A typed GraphQL client in a few lines, without code generation: each operation is a
 * `TypedDocumentNode<Result, Variables>`, so `request` checks the variables you pass and types the
 * data you get back. The result types below are written by hand to match schema.graphql; the
 * GraphQL tests run these very documents (test/graphql/queries.test.ts), so they stay true.
 *
 *   VR_API_URL=http://localhost:4000 VR_API_KEY=vr_live_... npx tsx examples/graphql-client.ts
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse, print } from 'graphql';

/** A document plus the types it carries; the cast is the only unchecked step. */
function typed<Result, Variables>(source: string): TypedDocumentNode<Result, Variables> {
  return parse(source) as TypedDocumentNode<Result, Variables>;
}

// ---------------------------------------------------------------------------------------------
// Operations

export interface LatestReportsVariables {
  limit?: number;
  offset?: number;
  dealership_id?: string;
}

export interface LatestReportsResult {
  reports: {
    total: number | null;
    items: {
      token: string;
      created_at: string;
      type: string;
      data: { vehicle: { vin: string | null; license_number: string | null } };
      dealership: { id: string; name: string } | null;
      profile: { id: string; name: string; email: string | null } | null;
    }[];
  };
}

export const LatestReports = typed<LatestReportsResult, LatestReportsVariables>(/* GraphQL */ `
  query LatestReports($limit: Int = 20, $offset: Int! = 0, $dealership_id: UUID) {
    reports(limit: $limit, offset: $offset, dealership_id: $dealership_id) {
      total
      items {
        token
        created_at
        type
        data { vehicle { vin license_number } }
        dealership { id name }
        profile { id name email }
      }
    }
  }
`);

export interface ReportDetailVariables {
  report_id: string;
}

export interface ReportDetailResult {
  report: {
    token: string;
    type: string;
    valid: boolean;
    data: {
      vehicle: {
        vin: string | null;
        specifications: { brand: string | null; model: string | null; year: number | null } | null;
      } | null;
    };
    state: { folder_created: { status: boolean | null; date: string | null } | null };
    organization: { id: string; name: string };
  };
}

export const ReportDetail = typed<ReportDetailResult, ReportDetailVariables>(/* GraphQL */ `
  query ReportDetail($report_id: UUID!) {
    report(report_id: $report_id) {
      token
      type
      valid
      data { vehicle { vin specifications { brand model year } } }
      state { folder_created { status date } }
      organization { id name }
    }
  }
`);

// ---------------------------------------------------------------------------------------------
// Client

export class GraphQLRequestError extends Error {
  constructor(
    readonly status: number,
    readonly errors: { message: string; extensions?: { code?: string } }[],
  ) {
    super(errors.map((e) => `${e.extensions?.code ?? 'ERROR'}: ${e.message}`).join('; '));
  }
}

/** POSTs one operation to `<baseUrl>/graphql` with the API key; its data, or a GraphQLRequestError. */
export async function request<Result, Variables>(
  connection: { baseUrl: string; apiKey: string },
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const response = await fetch(`${connection.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': connection.apiKey },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json()) as { data?: Result | null; errors?: GraphQLRequestError['errors'] };
  if (body.errors?.length || !body.data) throw new GraphQLRequestError(response.status, body.errors ?? []);
  return body.data;
}

async function main(): Promise<void> {
  const connection = { baseUrl: process.env.VR_API_URL ?? 'http://localhost:4000', apiKey: process.env.VR_API_KEY ?? '' };
  const { reports } = await request(connection, LatestReports, { limit: 3 });
  console.log(`${reports.total} reports; the latest:`);
  for (const item of reports.items) console.log(`  ${item.created_at} ${item.type} ${item.data.vehicle.vin ?? '-'} ${item.dealership?.name ?? ''}`);
  const first = reports.items[0];
  if (first) {
    const { report } = await request(connection, ReportDetail, { report_id: first.token });
    console.log(report.data.vehicle?.specifications, report.state.folder_created);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
