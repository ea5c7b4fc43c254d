/**
 * A full report's answer, kept once built and served as it is while still true (issue 27).
 *
 * GET /public/reports/{report_id} answers a ~400-field document: building it parses the stored
 * JSON, completes every field by its type and writes the answer out again, 40 % of the route's
 * CPU (bench/HISTORY.md, 2026-11-28). The body depends only on the report's row and on the route's
 * shape (its document, the schema, the scalars' serializers, the libraries that execute and
 * serialize it), so a body built once is kept in `report_answers` with the row's version (`xmin`)
 * and that shape, and the route's one statement returns it instead of the documents when both
 * still match. Any write to the row (this API's, an import's, a hand-made UPDATE) gives the row a
 * new `xmin`: the next request builds the body again from the row, by the typed path, and keeps
 * that one. A release whose answers differ has another shape: its bodies are built anew.
 *
 * The body kept is the one the typed path answered, byte for byte, built from the very row (and
 * version) the statement returned. Keeping it is one write after the answer went out, off the
 * request's path, when this process builds the same row version a second time (a version read
 * only once is not worth a write), at most KEEPS_IN_FLIGHT at once per process (further ones are
 * skipped: a later request keeps it). The table holds at most one body per report (the newest
 * kept), deleted with the report, so it is bounded by the reports themselves, and a tenant fills
 * it only with its own.
 *
 * GraphQL serves the same body for a `report` field that selects exactly the REST route's fields
 * (api/graphql/stored-report-answers.ts): that subtree's JSON is the REST body, byte for byte.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  isScalarType,
  print,
  printSchema,
  type DocumentNode,
  type FieldNode,
  type FormattedExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { RequestContext } from '../features/context';
import { findReportOrItsAnswer, keepReportAnswer } from '../features/reports/reports.service';
import { restDocumentFor } from './rest/rest-documents';
import { REST_ROUTES } from './rest/routes';

/** Bump when the body's bytes change for the same row, document and schema through code the shape does not see. */
const ANSWER_FORMAT = 'report answer v1';

/** Libraries whose versions change how the answer is executed or written. */
const EXECUTING_PACKAGES = ['graphql', 'graphql-jit', 'sofa-api'];

/** Bodies being written at once in this process: more are not queued (a later request keeps them). */
export const KEEPS_IN_FLIGHT = 4;

/**
 * Row versions remembered as built once (the oldest forgotten first): ~100 bytes each, 2 MB in all.
 * One tenant reading many reports makes the process forget the others' first builds sooner, which
 * costs them a third build before keeping, never a wrong answer.
 */
export const BUILT_ONCE_CAPACITY = 20_000;

/** What the answer's bytes depend on apart from the row: the route's document and everything that executes it. */
export function answerShape(schema: GraphQLSchema, document: DocumentNode): string {
  const require = createRequire(__filename);
  const hash = createHash('sha256').update(`${ANSWER_FORMAT}\n${print(document)}\n${printSchema(schema)}\n`);
  for (const type of Object.values(schema.getTypeMap())) {
    if (isScalarType(type)) hash.update(`${type.name}:${String(type.serialize)}\n`);
  }
  for (const name of EXECUTING_PACKAGES) {
    hash.update(`${name}@${(require(`${name}/package.json`) as { version: string }).version}\n`);
  }
  return hash.digest('base64url').slice(0, 27);
}

/**
 * One request's report: its stored body, or the row its body is built from (in the request's
 * report loader, where the route's resolver finds it) and a `keep` for that body; null: none.
 */
export type StoredAnswerLookup = { updatedAt: Date; body: string } | { updatedAt: Date; keep: (body: string) => void } | null;

export class StoredAnswers {
  private keeping = 0;
  /** Row versions built once by this process and not kept (yet): the next build of one keeps it. */
  private readonly builtOnce = new Map<string, true>();

  constructor(readonly shape: string) {}

  /** The key's organization's report `report_id`, in one statement of `context.reads`. */
  async lookup(context: RequestContext, organizationId: string, variables: Record<string, unknown>): Promise<StoredAnswerLookup> {
    // The loader's key, as the resolver writes it (reports.resolver.ts).
    const token = String(variables.report_id).toLowerCase();
    const found = await findReportOrItsAnswer(context.reads, organizationId, token, this.shape);
    if (!found) return null;
    if ('answer' in found) return { updatedAt: found.updated_at, body: found.answer };
    context.loaders.report.prime(token, found.report);
    const { version } = found;
    return { updatedAt: found.updated_at, keep: (body) => this.keep(context, token, version, body) };
  }

  /**
   * Writes the body on the primary, after the answer, from the second time this process builds the
   * same row version: a version read once (a sync client's read after each change) costs no write,
   * which costs more than the building it would save (bench/HISTORY.md, 2026-11-28, 15:50–16:45). A
   * failure costs only the next request's building.
   */
  private keep(context: RequestContext, token: string, version: string, body: string): void {
    const built = `${token} ${version}`;
    if (!this.builtOnce.delete(built)) {
      if (this.builtOnce.size >= BUILT_ONCE_CAPACITY) this.builtOnce.delete(this.builtOnce.keys().next().value!);
      this.builtOnce.set(built, true);
      return;
    }
    if (this.keeping >= KEEPS_IN_FLIGHT) return;
    this.keeping += 1;
    keepReportAnswer(context.db.prisma, token, version, this.shape, body)
      .catch((error: unknown) => context.log.warn({ err: error }, 'a report answer was not kept'))
      .finally(() => {
        this.keeping -= 1;
      });
  }
}

/**
 * A kept body standing for a field's value in a GraphQL result: `stringifyResult` writes it as it
 * is where JSON.stringify would have written the value it was built from.
 */
export class StoredJson {
  constructor(readonly text: string) {}
}

/** Stands for a StoredJson while the rest of the result is written (random: nothing else in a result holds it). */
const PLACEHOLDER = `stored-json-${randomUUID()}`;
const QUOTED_PLACEHOLDER = JSON.stringify(PLACEHOLDER);

/** Whether a result holds a StoredJson: as a root field's value, or as a field of one (a page's written items). */
function holdsStoredJson(data: Record<string, unknown>): boolean {
  for (const key in data) {
    const value = data[key];
    if (value instanceof StoredJson) return true;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner in value) if ((value as Record<string, unknown>)[inner] instanceof StoredJson) return true;
    }
  }
  return false;
}

/** Apollo's `stringifyResult`: its own (JSON and a newline), with each StoredJson written as it is. */
export function stringifyResult(result: FormattedExecutionResult): string {
  const data = result.data as Record<string, unknown> | null | undefined;
  if (!data || !holdsStoredJson(data)) return `${JSON.stringify(result)}\n`;
  // Collected in the order JSON.stringify meets them, which is the order of their placeholders.
  const stored: string[] = [];
  const written = JSON.stringify(result, (_key, value: unknown) => {
    if (!(value instanceof StoredJson)) return value;
    stored.push(value.text);
    return PLACEHOLDER;
  });
  let index = 0;
  return `${written.replaceAll(QUOTED_PLACEHOLDER, () => stored[index++]!)}\n`;
}

const REPORT_ANSWERS = new WeakMap<GraphQLSchema, StoredAnswers>();

/** The REST route that answers a full report, and its document (the shape both interfaces keep). */
const reportRoute = () => REST_ROUTES.find((route) => route.field === 'Query.report')!;

/** The full report's kept answers for this schema: one instance per schema, for both interfaces. */
export function reportAnswers(schema: GraphQLSchema): StoredAnswers {
  let answers = REPORT_ANSWERS.get(schema);
  if (!answers) REPORT_ANSWERS.set(schema, (answers = new StoredAnswers(answerShape(schema, restDocumentFor(schema, reportRoute())))));
  return answers;
}

/** The selection of the REST route's `report` field: the full report of the spec. */
export function reportRouteSelection(schema: GraphQLSchema): SelectionSetNode {
  const operation = restDocumentFor(schema, reportRoute()).definitions[0] as OperationDefinitionNode;
  return (operation.selectionSet.selections[0] as FieldNode).selectionSet!;
}
