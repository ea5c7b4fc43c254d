import { buildSchema, type GraphQLArgument, type GraphQLSchema } from 'graphql';
import type { Location } from '../../../src/api/contract/pydantic-errors';
import { validateArguments, type ValidationResult } from '../../../src/api/contract/validation/validate-arguments';
import { INPUT_RULES_EXTENSION, type InputRule } from '../../../src/shared/schema/input-rules';

/** A throwaway schema shaped like the real one (graphql-scalars names: UUID, DateTimeISO, JSON). */
export const SDL = /* GraphQL */ `
  scalar UUID
  scalar DateTimeISO
  scalar JSON

  enum ReportType {
    inspection
    counter_inspection
    after_sale
    marketing
  }
  enum Lang {
    fr
    en
    es
  }

  type Query {
    reports(
      limit: Int = 100
      offset: Int! = 0
      valid: Boolean = true
      token: UUID
      created_at__gte: DateTimeISO
      type: ReportType
      data__contains: JSON
      vin: String
      score: Float
      tokens: [UUID!]
    ): Int
    report(report_id: UUID!): Int
  }

  type Mutation {
    createLead(
      dealership: UUID!
      email: String
      name: String
      lang: Lang! = fr
      custom_sms: String
      sendEmail: Boolean! = false
      sendPhone: Boolean! = false
      count: Int
      extra: JSON
    ): Int
  }
`;

export type RuleTable = Record<string, InputRule[]>;

export const REPORT_RULES: RuleTable = { limit: [{ kind: 'range', ge: 0, le: 1000 }], offset: [{ kind: 'range', ge: 0 }] };
export const LEAD_RULES: RuleTable = { custom_sms: [{ kind: 'length', max: 480 }] };

/** A throwaway schema's argument with the rules the real one declares with `@Rules`. */
export function withRules(arg: GraphQLArgument, rules: InputRule[] | undefined): GraphQLArgument {
  return { ...arg, extensions: { [INPUT_RULES_EXTENSION]: rules ?? [] } };
}

const rulesFrom = (table: RuleTable) => (arg: GraphQLArgument) => table[arg.name] ?? [];

export function fieldArgs(schema: GraphQLSchema, rootType: 'Query' | 'Mutation', field: string): readonly GraphQLArgument[] {
  const root = rootType === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const found = root?.getFields()[field];
  if (!found) throw new Error(`no field ${rootType}.${field}`);
  return found.args;
}

export const schema = buildSchema(SDL);

export function listReports(query: Record<string, string | string[]>, sdl?: string): ValidationResult {
  const s = sdl ? buildSchema(sdl) : schema;
  return validateArguments({
    args: fieldArgs(s, 'Query', 'reports'),
    locationOf: () => 'query',
    query,
    path: {},
    body: undefined,
    rulesOf: rulesFrom(REPORT_RULES),
  });
}

export function createLead(body: unknown): ValidationResult {
  return validateArguments({
    args: fieldArgs(schema, 'Mutation', 'createLead'),
    locationOf: (): Location => 'body',
    query: {},
    path: {},
    body,
    rulesOf: rulesFrom(LEAD_RULES),
  });
}

export function errorsOf(result: ValidationResult) {
  if (result.ok) throw new Error(`expected errors, got variables ${JSON.stringify(result.variables)}`);
  return result.errors;
}

export function variablesOf(result: ValidationResult) {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.errors)}`);
  return result.variables;
}
