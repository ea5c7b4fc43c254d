/**
 * `tsx bench/explain.ts --database-url URL [--full]`: EXPLAIN (ANALYZE, BUFFERS) of the page and
 * count statements of each list scenario, built by src/features/reports/report-query.ts exactly as the app
 * builds them, on a database loaded by `bench/run.ts --keep`. Prints, per statement, the indexes
 * used, the execution time and the shared buffers touched (or the whole plan with --full).
 */
import pg from 'pg';
import type { Prisma } from '../src/generated/prisma/client';
import { parseReportOrder, reportCountSql, reportPageSql } from '../src/features/reports/report-query';
import type { ReportFilterArgs } from '../src/features/reports/report-filters.args';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const url = args[args.indexOf('--database-url') + 1];
  if (!args.includes('--database-url') || !url) throw new Error('--database-url URL is required');
  const full = args.includes('--full');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const {
      rows: [org],
    } = await client.query<{ organization_id: string; n: number }>(
      'SELECT organization_id, count(*)::int AS n FROM reports GROUP BY 1 ORDER BY 2 DESC LIMIT 1',
    );
    const organizationId = org!.organization_id;
    const {
      rows: [sample],
    } = await client.query<{ vin: string; brand: string; client_name: string; created_at: Date }>(
      'SELECT vin, brand, client_name, created_at FROM reports WHERE organization_id = $1 AND valid ORDER BY created_at DESC OFFSET $2 LIMIT 1',
      [organizationId, Math.floor(org!.n / 3)],
    );
    const s = sample!;
    const from = new Date(s.created_at.getTime() - 30 * 86_400_000);
    const lastName = s.client_name.split(' ').pop()!.toLowerCase();
    const deep = Math.min(50_000, Math.floor(org!.n / 2));
    const cases: [string, Partial<ReportFilterArgs>, { offset?: number; order_by?: string }?][] = [
      ['default page', {}],
      ['created_at range 30 d', { created_at__gte: from, created_at__lte: s.created_at }],
      ['vin', { vin: s.vin.toLowerCase() }],
      ['brand', { brand: s.brand.toLowerCase() }],
      ['dealership_name', { dealership_name: 'lyon' }],
      ['type=remote', { type: 'remote' as never }],
      ['valid=false', { valid: false }],
      ['data__contains fuel', { data__contains: { vehicle: { specifications: { fuel: 'Électrique' } } } }],
      ['data__contains vin', { data__contains: { vehicle: { vin: s.vin } } }],
      ['state__contains sold', { state__contains: { folder_sold: { status: true } } }],
      ['state__not_contains sold', { state__not_contains: { folder_sold: { status: true } } }],
      ['search 2 terms', { search: `${lastName} ${s.brand.toLowerCase()}` }],
      ['search plate part', { search: 'ab1' }],
      [`deep offset ${deep}`, {}, { offset: deep }],
      ['order_by brand', {}, { order_by: 'brand' }],
      ['order_by dealership_name', {}, { order_by: 'dealership_name' }],
    ];
    const explain = async (label: string, statement: Prisma.Sql) => {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
        statement.values as unknown[],
      );
      const plan = rows.map((r) => r['QUERY PLAN']);
      const indexes = [
        ...new Set(
          plan.flatMap((l) =>
            [...l.matchAll(/(?:Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\w+)/g)].map((m) => m[1]!),
          ),
        ),
      ];
      const seq = plan.some((l) => /Seq Scan on reports/.test(l)) ? 'Seq Scan on reports' : '';
      const time = plan.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '';
      const buffers = /Buffers: shared (.*)/.exec(plan.find((l) => l.includes('Buffers:')) ?? '')?.[1] ?? '';
      console.log(`| ${label} | ${[...indexes, seq].filter(Boolean).join(', ') || '-'} | ${time} | ${buffers} |`);
      if (full) console.log(plan.join('\n'));
    };
    console.log(`organization under test: ${org!.n} reports\n`);
    console.log('| statement | indexes used | execution time | shared buffers (top node) |');
    console.log('|---|---|---:|---|');
    for (const [label, filters, page] of cases) {
      const filtersWithDefault = { valid: true, ...filters };
      await explain(
        `${label}: page`,
        reportPageSql({
          organizationId,
          filters: filtersWithDefault,
          limit: 100,
          offset: page?.offset ?? 0,
          order: parseReportOrder(page?.order_by),
        }),
      );
      if (!page) await explain(`${label}: count`, reportCountSql(organizationId, filtersWithDefault));
    }
  } finally {
    await client.end();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
