/**
 * The columns of the schema's tables and their PostgreSQL types, read once at start-up from the
 * database the migrations built: what the answer planner may read from each table.
 */
import type { PrismaClient } from '../../generated/prisma/client';

export type ColumnCatalog = ReadonlyMap<string, ReadonlyMap<string, string>>;

export async function readColumnCatalog(prisma: PrismaClient): Promise<ColumnCatalog> {
  const rows = await prisma.$queryRaw<{ table_name: string; column_name: string; udt_name: string }[]>`
    SELECT table_name::text, column_name::text, udt_name::text FROM information_schema.columns WHERE table_schema = current_schema()`;
  const catalog = new Map<string, Map<string, string>>();
  for (const row of rows) {
    let table = catalog.get(row.table_name);
    if (!table) catalog.set(row.table_name, (table = new Map()));
    table.set(row.column_name, row.udt_name);
  }
  return catalog;
}
