/**
 * What plans answers for both interfaces (operation-plan.ts): the facts read once per schema, the
 * typed path for handed-over rows, and the metric of how root fields were answered. Each interface
 * keeps its plans beside its compiled documents: GraphQL's in the organization's bounded partition
 * (graphql/compiled-execution.ts), REST's with its route.
 */
import { Kind, visit, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { Counter, type Registry } from 'prom-client';
import type { AnswerPath } from './answer-operation';
import type { ColumnCatalog, SchemaFacts } from './object-sql';
import { planOperation, schemaFacts, type OperationPlan } from './operation-plan';
import { typedShapeOf } from './typed-documents';
import { TypedRows } from './typed-rows';

/** Variables read by @skip/@include anywhere in a document: they shape what its fields collect. */
const conditionVariables = new WeakMap<DocumentNode, readonly string[]>();

export class AnswerPlans {
  readonly facts: SchemaFacts;
  readonly rows: TypedRows;
  private readonly answered?: Counter<'field' | 'path'>;

  constructor(schema: GraphQLSchema, columns: ColumnCatalog, registry?: Registry) {
    this.facts = { ...schemaFacts(schema, columns), typedShape: typedShapeOf(schema) };
    this.rows = new TypedRows(schema);
    this.answered =
      registry &&
      new Counter({
        name: 'vr_answer_plan_answers_total',
        help: 'Root fields answered through an answer plan, by field and path: written (by PostgreSQL), typed_row (a row handed to the typed path), typed_field (the field whole).',
        labelNames: ['field', 'path'] as const,
        registers: [registry],
      });
  }

  onAnswered = (field: string, path: AnswerPath): void => {
    this.answered?.inc({ field, path });
  };

  /** The plan of a document's operation; undefined: none of its root fields is written by PostgreSQL. */
  plan(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>): OperationPlan | undefined {
    return planOperation(this.facts, document, operation, variables);
  }

  /** What tells a document's plans apart: the values of the variables its @skip and @include read. */
  conditionsOf(document: DocumentNode, variables: Record<string, unknown>): string {
    let names = conditionVariables.get(document);
    if (!names) {
      const found = new Set<string>();
      visit(document, {
        Directive(directive) {
          if (directive.name.value !== 'skip' && directive.name.value !== 'include') return;
          for (const argument of directive.arguments ?? []) if (argument.value.kind === Kind.VARIABLE) found.add(argument.value.name.value);
        },
      });
      conditionVariables.set(document, (names = [...found]));
    }
    return names.length > 0 ? JSON.stringify(names.map((name) => variables[name] ?? null)) : '';
  }
}
