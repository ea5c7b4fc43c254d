import { Prisma } from '../generated/prisma/client';
import { valueError } from './errors';

export interface OrderTerm {
  field: string;
  descending: boolean;
}

/**
 * Parses `order_by` (decisions.md): comma-separated field names, each optionally prefixed by `-`
 * for descending. Unknown fields are a 422 on `order_by`.
 */
export function parseOrderBy(raw: string | null | undefined, allowed: readonly string[], fallback: OrderTerm[]): OrderTerm[] {
  if (raw === null || raw === undefined || raw.trim() === '') return fallback;
  const terms = raw.split(',').map((part) => part.trim());
  const unknown = terms.filter((term) => !allowed.includes(term.replace(/^-/, '')));
  if (unknown.length > 0 || terms.some((t) => t === '' || t === '-')) {
    const bad = unknown.find((t) => t !== '') ?? '';
    throw valueError('order_by', `unknown order_by field '${bad.replace(/^-/, '')}'; allowed: ${allowed.join(', ')}`, raw);
  }
  const seen = new Set<string>();
  return terms
    .map((term) => ({ field: term.replace(/^-/, ''), descending: term.startsWith('-') }))
    .filter((term) => (seen.has(term.field) ? false : (seen.add(term.field), true)));
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
