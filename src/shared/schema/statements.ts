/**
 * How many SQL statements resolving a field costs, declared beside the field (relations batch
 * through DataLoaders, so a relation costs its statements once per request, whatever the number
 * of parent items). The API layer prices operations with it: for the rate limit, which charges
 * a request the statements it may run, and for the per-operation cap.
 */
import { Extensions } from 'type-graphql';

export const STATEMENTS_EXTENSION = 'sqlStatements';

export function Statements(count: number): PropertyDecorator & MethodDecorator & ClassDecorator {
  return Extensions({ [STATEMENTS_EXTENSION]: count });
}

export function statementsOf(field: { extensions?: Readonly<Record<string, unknown>> | null }): number {
  const declared = field.extensions?.[STATEMENTS_EXTENSION];
  return typeof declared === 'number' ? declared : 0;
}
