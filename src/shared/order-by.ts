/**
 * `order_by`: comma-separated field names, each optionally prefixed by `-` for descending
 * (`-updated_at,vin`). The value is made of such terms only: no spaces, no empty term (an empty
 * `order_by=` names the empty field and is refused; absent means the list's default order). Checked once by the validation pass (api/contract); the
 * features only turn checked values into ORDER BY clauses.
 */
import { Prisma } from '../generated/prisma/client';

export interface OrderTerm {
  field: string;
  descending: boolean;
}

export interface OrderParse {
  terms: OrderTerm[];
  /** terms that name no allowed field, as written (`' created_at'`, `''`, `'-'`, `'foo'`) */
  unknown: string[];
}

/** Splits `raw` into terms; a field named twice keeps its first direction. */
export function parseOrderBy(raw: string, allowed: readonly string[]): OrderParse {
  const terms: OrderTerm[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const term of raw.split(',')) {
    const field = term.startsWith('-') ? term.slice(1) : term;
    if (!allowed.includes(field)) {
      unknown.push(term);
      continue;
    }
    if (seen.has(field)) continue;
    seen.add(field);
    terms.push({ field, descending: term.startsWith('-') });
  }
  return { terms, unknown };
}

/** The order a checked `order_by` asks for, or `fallback` when it asks for none. */
export function orderTerms(raw: string | null | undefined, allowed: readonly string[], fallback: OrderTerm[]): OrderTerm[] {
  if (raw === null || raw === undefined || raw === '') return fallback;
  const { terms } = parseOrderBy(raw, allowed);
  return terms.length > 0 ? terms : fallback;
}

/**
 * ORDER BY for the terms, always ending with the primary key so that paging is stable.
 * Columns are SQL identifiers from a fixed allow-list, never user text.
 */
export function orderByClause(terms: OrderTerm[], columns: Record<string, string>, primaryKey: string): Prisma.Sql {
  const parts = terms.map((t) => `${columns[t.field]} ${t.descending ? 'DESC' : 'ASC'}`);
  if (!terms.some((t) => columns[t.field] === primaryKey)) parts.push(`${primaryKey} ASC`);
  return Prisma.raw(parts.join(', '));
}

/** The same order for Prisma's query API: `[{ name: 'asc' }, …, { id: 'asc' }]`. */
export function prismaOrderBy<T>(terms: OrderTerm[], primaryKey: string): T[] {
  const order = terms.map((t) => ({ [t.field]: t.descending ? 'desc' : 'asc' }));
  if (!terms.some((t) => t.field === primaryKey)) order.push({ [primaryKey]: 'asc' });
  return order as T[];
}
