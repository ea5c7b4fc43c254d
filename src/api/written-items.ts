/**
 * The reports list's items written by PostgreSQL (features/reports/report-item-json.ts), on both
 * interfaces: the operation is executed as always (arguments, page, total, cursor, errors), its
 * `reports` resolver answers `items` empty and leaves their JSON texts in the request's context,
 * and the answer gets them where its empty `items` stands: the REST route's body here
 * (`withWrittenItems`), a GraphQL result as a StoredJson that `stringifyResult` writes as it is
 * (graphql/written-report-items.ts). Nothing else of the answer changes.
 */
import { Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import { writesReportItems, type WrittenField } from '../features/reports/report-item-json';
import { MAX_PAGE_SIZE } from '../shared/pagination';

/** A page body as the route writes it with its items left out: `items` comes first (the spec's order). */
const EMPTY_ITEMS = '{"items":[]';

/** A selection as plain fields (response key, field, what it selects), or undefined if it holds a fragment or a directive. */
export function fieldsOf(selectionSet: SelectionSetNode): WrittenField[] | undefined {
  const fields: WrittenField[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return undefined;
    const select = selection.selectionSet && fieldsOf(selection.selectionSet);
    if (selection.selectionSet && !select) return undefined;
    fields.push({ key: selection.alias?.value ?? selection.name.value, field: selection.name.value, ...(select && { select }) });
  }
  return fields;
}

const fieldCount = (fields: readonly WrittenField[]): number => fields.reduce((n, f) => n + 1 + (f.select ? fieldCount(f.select) : 0), 0);

/**
 * Fields (nested ones included) an item written by PostgreSQL may select: the statement's text
 * grows with them, and a client's aliases could otherwise repeat a field thousands of times in a
 * statement every connection keeps prepared (platform/db/prepared-statements.ts bounds their
 * number, not their size). Every known field once is 41; the REST route's selection is 15.
 */
export const MAX_WRITTEN_FIELDS = 64;

/**
 * Whether a page's items may be written by PostgreSQL: it writes every field they select, they
 * select at most MAX_WRITTEN_FIELDS, and no page can hold more values than the answer budget
 * allows (written items are not counted as they are built: the typed path must never have
 * refused them).
 */
export function writableItems(items: readonly WrittenField[], maxAnswerValues: number): boolean {
  const fields = fieldCount(items);
  return fields <= MAX_WRITTEN_FIELDS && MAX_PAGE_SIZE * fields <= maxAnswerValues && writesReportItems(items);
}

/** The items' selection of the reports route's document, when they can be written and its page's first field is `items` (the body is spliced there). */
export function writtenItemsOf(document: DocumentNode, maxAnswerValues: number): readonly WrittenField[] | undefined {
  const operation = document.definitions[0];
  if (operation?.kind !== Kind.OPERATION_DEFINITION) return undefined;
  const root = fieldsOf(operation.selectionSet);
  const page = root?.length === 1 ? root[0]!.select : undefined;
  const items = page?.[0];
  if (!items?.select || items.key !== 'items' || items.field !== 'items') return undefined;
  return writableItems(items.select, maxAnswerValues) ? items.select : undefined;
}

/** The route's body with its items: their texts where the empty list stands. */
export function withWrittenItems(body: string, texts: readonly string[]): string {
  if (!body.startsWith(EMPTY_ITEMS)) throw new Error('a page written without its items does not begin with them');
  return `${EMPTY_ITEMS.slice(0, -1)}${texts.join(',')}${body.slice(EMPTY_ITEMS.length - 1)}`;
}
