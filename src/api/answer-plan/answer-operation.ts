/**
 * Runs an operation by its plan (operation-plan.ts): each written root field by its one statement,
 * the others by the typed path, all at once. A written field behaves as its resolver does: the same
 * arguments and checks, errors and nulls. What the statement could not write goes to the typed
 * path: a row whose JSON is NULL alone (typed-rows.ts), a field whose answer might pass the
 * request's answer budget whole (which counts it exactly and refuses it or not).
 */
import {
  getArgumentValues,
  isNonNullType,
  locatedError,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type OperationDefinitionNode,
} from 'graphql';
import { requireOrganization, type RequestContext } from '../../features/context';
import { findCompactReports, listWrittenReports, readWrittenReport, type WrittenRow } from '../../features/reports/reports.service';
import { invalidInput, notFound } from '../../shared/errors';
import { checkArgumentValues } from '../contract/check-arguments';
import type { EnvelopeMember, OperationPlan, PlannedRoot, TypedOperation } from './operation-plan';
import { DOCUMENT_SEPARATOR, fillProjectionMarks } from './object-sql';
import { RawJson } from './raw-json';
import type { TypedRows } from './typed-rows';

/** How a root field was answered: its written JSON, a row of it by the typed path, or the field whole by the typed path. */
export type AnswerPath = 'written' | 'typed_row' | 'typed_field';

export interface PlanRun {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** the operation's variables, coerced */
  variables: Record<string, unknown>;
  context: RequestContext;
  /** the root fields' arguments were checked before execution (a REST route's) */
  argumentsChecked: boolean;
  /** the typed path for some of the operation's root fields */
  typed: (operation: TypedOperation) => Promise<ExecutionResult>;
  rows: TypedRows;
  onAnswered?: (field: string, path: AnswerPath) => void;
}

interface RootOutcome {
  value: unknown;
  errors: readonly GraphQLError[];
}

export async function answerWithPlan(plan: OperationPlan, run: PlanRun): Promise<ExecutionResult> {
  const typed = plan.typed ? run.typed(plan.typed) : undefined;
  const planned = plan.planned.map((root) =>
    answerRoot(root, run).catch((error: unknown) => ({ value: null, errors: [locatedError(error, root.nodes, [root.key])] })),
  );
  const [rest, ...outcomes] = await Promise.all([typed, ...planned]);
  const errors: GraphQLError[] = [...(rest?.errors ?? [])];
  const values = new Map<string, unknown>();
  // A non-null root field that failed leaves no data at all.
  let failedNonNull = rest !== undefined && (rest.data === null || rest.data === undefined);
  plan.planned.forEach((root, index) => {
    const outcome = outcomes[index]!;
    errors.push(...outcome.errors);
    values.set(root.key, outcome.value);
    if (outcome.value === null && isNonNullType(root.field.type)) failedNonNull = true;
  });
  if (failedNonNull) return { data: null, errors };
  const restData = (rest?.data ?? {}) as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  for (const key of plan.keys) data[key] = values.has(key) ? values.get(key) : restData[key];
  return errors.length > 0 ? { data, errors } : { data };
}

/** The field's arguments, coerced and checked as its resolver would have them. */
function argumentsOf(root: PlannedRoot, run: PlanRun): Record<string, unknown> {
  const args = getArgumentValues(root.field, root.nodes[0]!, run.variables);
  if (!run.argumentsChecked) {
    const failures = checkArgumentValues(root.field.args, args);
    if (failures.length > 0) throw invalidInput(failures);
  }
  return args;
}

async function answerRoot(root: PlannedRoot, run: PlanRun): Promise<RootOutcome> {
  const outcome = root.kind === 'report' ? await answerReport(root, run) : await answerReports(root, run);
  if (outcome !== 'typed_field') return outcome;
  run.onAnswered?.(root.field.name, 'typed_field');
  const result = await run.typed(root.alone);
  return { value: (result.data as Record<string, unknown> | null | undefined)?.[root.key] ?? null, errors: result.errors ?? [] };
}

/** An object's text with the parts of its typed documents, which the plan selects in the process (projection.ts), where they are marked. */
function withProjections(root: PlannedRoot, json: string, documents: string | null): string {
  const { projectors } = root.written;
  if (projectors.length === 0) return json;
  // One document (the usual selection: parts of `data`) needs no search for separators through its text.
  const texts = projectors.length === 1 ? [documents!] : documents!.split(DOCUMENT_SEPARATOR);
  return fillProjectionMarks(json, (index) => projectors[index]!(texts[index]!));
}

/** Whether the request's answer budget takes `bound` more values: if not, the typed path counts them exactly. */
function charged(context: RequestContext, bound: number): boolean {
  const budget = context.answerBudget;
  if (!budget) return true;
  if (!budget.fits(bound)) return false;
  budget.charge(bound);
  return true;
}

async function answerReport(root: Extract<PlannedRoot, { kind: 'report' }>, run: PlanRun): Promise<RootOutcome | 'typed_field'> {
  const args = argumentsOf(root, run);
  const { context } = run;
  const organizationId = requireOrganization(context);
  // The loader's key, as the resolver writes it (reports.resolver.ts).
  const token = String(args.report_id).toLowerCase();
  const sql = root.written.sql(organizationId);
  // Not yet on a replica (a report just created): the primary is asked, as the loader asks it.
  const found =
    (await readWrittenReport(context.reads, organizationId, token, sql)) ??
    (context.primaryOnMiss ? await readWrittenReport(context.primaryOnMiss, organizationId, token, sql) : null);
  if (!found) throw notFound('Report not found');
  const meta = { version: found.version };
  if (found.json !== null) {
    if (!charged(context, found.bound)) return 'typed_field';
    run.onAnswered?.('report', 'written');
    return { value: new RawJson(withProjections(root, found.json, found.documents), meta), errors: [] };
  }
  run.onAnswered?.('report', 'typed_row');
  const report = await context.loaders.report.load(token);
  if (!report) throw notFound('Report not found');
  const row = await run.rows.complete(root.type, report, root.nodes, run, [root.key]);
  return { value: row.data === null ? null : new RawJson(JSON.stringify(row.data), meta), errors: row.errors };
}

async function answerReports(root: Extract<PlannedRoot, { kind: 'reports' }>, run: PlanRun): Promise<RootOutcome | 'typed_field'> {
  const { cursor, limit, offset, order_by, ...filters } = argumentsOf(root, run) as Record<string, never>;
  const { context } = run;
  const organizationId = requireOrganization(context);
  const selects = (kind: EnvelopeMember['kind']) => root.envelope.some((member) => member.kind === kind);
  const options = { countTotal: selects('total'), cursors: context.cursors, nextPage: selects('next_cursor') || selects('pageInfo') };
  const sql = root.written.sql(organizationId);
  const page = await listWrittenReports(context.reads, organizationId, filters, { limit, offset, order_by, cursor }, sql, options);
  // The typed path counts a list as 1 and each item by what it selects (answer-size.ts).
  const bound = page.written.reduce((sum, row) => sum + row.bound, 1);
  if (!charged(context, bound)) return 'typed_field';
  const errors: GraphQLError[] = [];
  const itemsKey = root.envelope.find((member) => member.kind === 'items')!.key;
  const items = await itemTexts(root, run, organizationId, page.written, [root.key, itemsKey], errors);
  // A null item of a list of non-null items nulls the page, and the page is non-null.
  if (items === null) return { value: null, errors };
  run.onAnswered?.('reports', 'written');
  let total: number | null = null;
  if (selects('total')) {
    try {
      total = await page.total;
    } catch (error) {
      const key = root.envelope.find((member) => member.kind === 'total')!.key;
      errors.push(locatedError(error, root.nodes, [root.key, key]));
    }
  }
  const text = envelopeText(root.envelope, { ...page, total, items });
  return { value: new RawJson(text, { nextCursor: page.next_cursor }), errors };
}

/** The items' texts joined, the rows PostgreSQL did not write completed by the typed path; null when one of them is null. */
async function itemTexts(
  root: Extract<PlannedRoot, { kind: 'reports' }>,
  run: PlanRun,
  organizationId: string,
  rows: readonly WrittenRow[],
  path: readonly string[],
  errors: GraphQLError[],
): Promise<string | null> {
  const handed = rows.filter((row) => row.json === null).map((row) => row.token);
  const written = (row: WrittenRow) => withProjections(root, row.json!, row.documents);
  if (handed.length === 0) return `[${rows.map(written).join(',')}]`;
  run.onAnswered?.('reports', 'typed_row');
  const compact = new Map((await findCompactReports(run.context.reads, organizationId, handed)).map((report) => [report.token, report]));
  const texts = await Promise.all(
    rows.map(async (row, index) => {
      if (row.json !== null) return written(row);
      const item = compact.get(row.token);
      // Deleted since the page was read: the typed path's page would not have held it either.
      if (!item) return undefined;
      const typed = await run.rows.complete(root.itemType, item, root.itemNodes, run, [...path, index]);
      errors.push(...typed.errors);
      return typed.data === null ? null : JSON.stringify(typed.data);
    }),
  );
  if (texts.includes(null)) return null;
  return `[${texts.filter((text) => text !== undefined).join(',')}]`;
}

/** A page's JSON: its members in the selection's order, `items` as written. */
function envelopeText(members: readonly EnvelopeMember[], values: Record<string, unknown>): string {
  const valueOf = (member: EnvelopeMember) => {
    if (member.kind === 'items') return values.items as string;
    if (member.kind === 'typename') return JSON.stringify(member.typename);
    if (member.kind !== 'pageInfo') return JSON.stringify(values[member.kind] ?? null);
    const info = values.pageInfo as Record<string, unknown> | null | undefined;
    return info ? envelopeText(member.members, info) : 'null';
  };
  return `{${members.map((member) => `"${member.key}":${valueOf(member)}`).join(',')}}`;
}
