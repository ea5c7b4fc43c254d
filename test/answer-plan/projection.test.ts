/**
 * The projection of a typed selection (src/api/answer-plan/projection.ts) given a text that is not
 * the typed path's JSON: every prefix of a document, and the document with one character replaced
 * by a structural one, is projected or refused with the projection's error, and is never scanned
 * for ever. Each run is under a watchdog (node:vm's timeout stops a loop that does not end), so a
 * scan that loses its place fails this test instead of hanging it. The typed text itself is
 * projected to what graphql-js answers for the same selection of the same document.
 */
import 'reflect-metadata';
import vm from 'node:vm';
import {
  execute,
  getNamedType,
  GraphQLSchema,
  isObjectType,
  parse,
  type FieldNode,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { projector } from '../../src/api/answer-plan/projection';
import { SeededRandom } from '../../src/seed/vehicles';
import { restSelectionOf } from '../../src/shared/schema/rest-visibility';
import { generatedDocument, WELL_TYPED } from './generated-documents';

const SELECTION = `{ report(report_id: "x") { data {
  vehicle { vin specifications { brand model } tires { FLBrand } }
  metadata { name version } } } }`;

/** graphql-js's compact answer for `selection` of the stored document, with the document type as the query root. */
function answerOf(dataType: GraphQLObjectType, selection: string, document: unknown): string {
  const result = execute({ schema: new GraphQLSchema({ query: dataType }), document: parse(`{ ${selection} }`), rootValue: document });
  if (result instanceof Promise || result.errors) throw new Error(`graphql-js did not answer: ${JSON.stringify(result)}`);
  return JSON.stringify(result.data);
}

it('a typed text cut short or with a stray character ends in an error, never in a scan without end', async () => {
  const schema = await buildAppSchema();
  const reportType = schema.getType('Report');
  if (!isObjectType(reportType)) throw new Error('no Report type');
  const dataType = getNamedType(reportType.getFields().data!.type);
  if (!isObjectType(dataType)) throw new Error('no ReportData type');
  const operation = parse(SELECTION).definitions[0] as OperationDefinitionNode;
  const report = operation.selectionSet.selections[0] as FieldNode;
  const dataNode = report.selectionSet!.selections[0] as FieldNode;
  const project = projector({ schema, fragments: {}, variables: {} }, dataType, [dataNode]);

  const seed = Number(process.env.FUZZ_SEED ?? 44);
  const random = new SeededRandom(seed);
  // The typed text: every REST member in order, compact, as the typing functions write it.
  const stored = JSON.parse(generatedDocument(schema, random, WELL_TYPED).data) as unknown;
  const text = answerOf(dataType, restSelectionOf(dataType), stored);
  const selected = SELECTION.slice(SELECTION.indexOf('data {') + 'data {'.length, SELECTION.lastIndexOf('} } }'));
  expect(project(text)).toBe(answerOf(dataType, selected, stored));

  const context = vm.createContext({ run: () => undefined });
  const script = new vm.Script('run()');
  const outcomes = { projected: 0, refused: 0 };
  const attempt = (candidate: string) => {
    context.run = () => project(candidate);
    try {
      script.runInContext(context, { timeout: 2_000 });
      outcomes.projected += 1;
    } catch (error) {
      // A timeout's message ("Script execution timed out") fails here, with the text that caused it.
      expect({ candidate, message: (error as Error).message }).toEqual({
        candidate,
        message: 'a typed document is not the JSON text the typed path writes',
      });
      outcomes.refused += 1;
    }
  };
  for (let cut = 0; cut < text.length; cut += 1) attempt(text.slice(0, cut));
  for (let k = 0; k < 300; k += 1) {
    const at = random.int(0, text.length - 1);
    attempt(text.slice(0, at) + random.pick(['"', '\\', '{', '}', '[', ']', ',']) + text.slice(at + 1));
  }
  expect(outcomes.refused).toBeGreaterThan(0);
  expect(outcomes.projected).toBeGreaterThan(0);
}, 60_000);
