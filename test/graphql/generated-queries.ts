/**
 * Query documents generated from the schema (fast-check) for the differential of compiled
 * execution: root fields with nested selections, arguments with right and wrong values (inline or
 * as variables, declared nullable or not, with defaults, sent, omitted or null), aliases (some
 * repeating a response key), inline and named fragments, @skip/@include from literals and
 * variables. Values are mostly the seeded database's, so that most documents reach the resolvers.
 */
import fc from 'fast-check';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
} from 'graphql';
import { idsForArgument, type FuzzContext } from '../fuzz/fuzz-context';

interface Variable {
  name: string;
  definition: string;
  /** absent: not sent */
  value?: unknown;
}

interface Piece {
  text: string;
  variables: Variable[];
  fragments: string[];
}

const EMPTY: Piece = { text: '', variables: [], fragments: [] };
const join = (pieces: Piece[], separator = ' '): Piece => ({
  text: pieces.map((p) => p.text).join(separator),
  variables: pieces.flatMap((p) => p.variables),
  fragments: pieces.flatMap((p) => p.fragments),
});

function literal(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${literal(v)}`)
    .join(', ')}}`;
}

/** A value for an input of this type: mostly right, sometimes out of range or of the wrong type. */
function valueFor(context: FuzzContext, type: GraphQLInputType, argumentName: string): fc.Arbitrary<{ value: unknown; enumName?: string }> {
  const named = getNamedType(type);
  let right: fc.Arbitrary<{ value: unknown; enumName?: string }>;
  if (isEnumType(named)) right = fc.constantFrom(...named.getValues().map((v) => ({ value: v.name, enumName: v.name })));
  else if (isInputObjectType(named)) right = fc.constantFrom({ value: {} }, { value: { a: 1 } });
  else {
    const byType: Record<string, fc.Arbitrary<unknown>> = {
      UUID: fc.oneof(
        { weight: 40, arbitrary: fc.constantFrom(...idsForArgument(context, argumentName).slice(0, 6)) },
        { weight: 6, arbitrary: fc.constant('00000000-0000-4000-8000-000000000000') },
        { weight: 1, arbitrary: fc.constant('not-a-uuid') },
      ),
      Int: fc.constantFrom(0, 1, 2, 5, 10, 100, 1000, 1001, -1, 2147483647),
      Float: fc.constantFrom(0, 1.5, -2),
      Boolean: fc.boolean(),
      DateTimeISO: fc.constantFrom('2020-01-01T00:00:00Z', '2026-10-01T10:00:00+02:00', '2030-01-01T00:00:00Z'),
      String:
        argumentName === 'order_by'
          ? fc.constantFrom('name', '-created_at', 'created_at,token', ',', 'nope')
          : fc.constantFrom(...context.texts.slice(0, 5), ''),
      JSON: fc.constantFrom({}, { vehicle: { brand: 'x' } }, [1], 'x', 1),
    };
    right = (byType[named.name] ?? fc.constant('x')).map((value) => ({ value }));
  }
  const wrong = fc.constantFrom<{ value: unknown }>({ value: 'x' }, { value: 1 }, { value: true });
  const one = fc.oneof({ weight: 60, arbitrary: right }, { weight: 1, arbitrary: wrong });
  if (!isListType(getNullableType(type))) return one;
  return fc.array(one, { maxLength: 2 }).map((items) => ({ value: items.map((i) => i.value) }));
}

let variableCounter = 0;

function argumentsPiece(context: FuzzContext, args: readonly GraphQLArgument[]): fc.Arbitrary<Piece> {
  if (args.length === 0) return fc.constant(EMPTY);
  const one = (arg: GraphQLArgument): fc.Arbitrary<Piece | null> => {
    const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
    return fc
      .record({
        included: required ? fc.integer({ min: 0, max: 29 }).map((n) => n !== 0) : fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
        asVariable: fc.integer({ min: 0, max: 2 }).map((n) => n === 0),
        value: valueFor(context, arg.type, arg.name),
        // How the variable is declared and what is sent.
        nullable: required ? fc.integer({ min: 0, max: 9 }).map((n) => n === 0) : fc.boolean(),
        withDefault: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
        sent: fc.oneof({ weight: 14, arbitrary: fc.constant('value') }, { weight: 1, arbitrary: fc.constantFrom('omitted', 'null') }),
      })
      .map(({ included, asVariable, value, nullable, withDefault, sent }) => {
        if (!included) return null;
        const shown = value.enumName ?? literal(value.value);
        if (!asVariable) return { text: `${arg.name}: ${shown}`, variables: [], fragments: [] };
        variableCounter += 1;
        const name = `v${variableCounter}`;
        const type = nullable ? String(getNullableType(arg.type)) : String(isNonNullType(arg.type) ? arg.type : `${String(arg.type)}!`);
        const definition = `$${name}: ${type}${withDefault ? ` = ${shown}` : ''}`;
        const variable: Variable = { name, definition };
        if (sent === 'value') variable.value = value.value;
        if (sent === 'null') variable.value = null;
        return { text: `${arg.name}: $${name}`, variables: [variable], fragments: [] };
      });
  };
  return fc.tuple(...args.map(one)).map((parts) => {
    const pieces = parts.filter((p): p is Piece => p !== null);
    return pieces.length === 0 ? EMPTY : { ...join(pieces, ', '), text: `(${join(pieces, ', ').text})` };
  });
}

/** @skip/@include from a literal or a variable (declared with or without a default, sent or not, null). */
const directive: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 10, arbitrary: fc.constant(EMPTY) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        name: fc.constantFrom('skip', 'include'),
        literal: fc.option(fc.boolean()),
        declared: fc.constantFrom('Boolean!', 'Boolean!', 'Boolean = false', 'Boolean! = true', 'Boolean = true'),
        sent: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom<'true' | 'false'>('true', 'false') },
          { weight: 1, arbitrary: fc.constantFrom<'null' | 'omitted'>('null', 'omitted') },
        ),
      })
      .map(({ name, literal: value, declared, sent }) => {
        if (value !== null) return { text: `@${name}(if: ${value})`, variables: [], fragments: [] };
        variableCounter += 1;
        const variable: Variable = { name: `d${variableCounter}`, definition: `$d${variableCounter}: ${declared}` };
        if (sent !== 'omitted') variable.value = sent === 'null' ? null : sent === 'true';
        return { text: `@${name}(if: $${variable.name})`, variables: [variable], fragments: [] };
      }),
  },
);

function fieldPiece(
  context: FuzzContext,
  field: GraphQLField<unknown, unknown>,
  alias: string | null,
  depthLeft: number,
): fc.Arbitrary<Piece> {
  const named = getNamedType(field.type);
  const selection: fc.Arbitrary<Piece> = isLeafType(named)
    ? fc.constant(EMPTY)
    : depthLeft <= 0
      ? fc.constant({ text: '{ __typename }', variables: [], fragments: [] })
      : fc.constant(null).chain(() => selectionSet(context, named as GraphQLObjectType, depthLeft - 1));
  return fc.tuple(argumentsPiece(context, field.args), directive, selection).map(([args, dir, sub]) => ({
    text: `${alias ? `${alias}: ` : ''}${field.name}${args.text} ${dir.text} ${sub.text}`,
    variables: [...args.variables, ...dir.variables, ...sub.variables],
    fragments: sub.fragments,
  }));
}

let fragmentCounter = 0;

/**
 * Root fields whose answer may change between two identical requests by design: the change feed's
 * page ends at the server's oldest open transaction (docs/events.md), which moves meanwhile. Its
 * own tests (test/events) check it; comparing two calls of it proves nothing about the executors.
 */
const LIVE_ROOT_FIELDS = new Set(['events']);

function selectionSet(context: FuzzContext, type: GraphQLObjectType, depthLeft: number): fc.Arbitrary<Piece> {
  const isRoot = type === context.schema.getQueryType();
  const fields = Object.values(type.getFields()).filter((f) => !f.name.startsWith('__') && !(isRoot && LIVE_ROOT_FIELDS.has(f.name)));
  const objectFields = fields.filter((f) => isObjectType(getNamedType(f.type)));
  const field = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...fields) },
    { weight: objectFields.length > 0 ? 2 : 0, arbitrary: fc.constantFrom(...(objectFields.length > 0 ? objectFields : fields)) },
  );
  const aliased = fc.tuple(
    field,
    fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constantFrom('a', 'b', 'c', 'items', 'total') }),
  );
  // Distinct response keys (the same key with other arguments is a validation error, not worth
  // most runs); now and then the first field again, as is, for fields of one key to merge.
  return fc
    .uniqueArray(aliased, { minLength: 1, maxLength: 4, selector: ([f, alias]) => alias ?? f.name })
    .chain((chosen) =>
      fc.tuple(fc.tuple(...chosen.map(([f, alias]) => fieldPiece(context, f, alias, depthLeft))), fc.integer({ min: 0, max: 5 })),
    )
    .map(([pieces, repeat]) => (repeat === 0 ? [...pieces, pieces[0]!] : repeat === 1 ? [pieces[0]!, ...pieces] : pieces))
    .chain((pieces) =>
      fc
        .record({
          wrap: fc.constantFrom('none', 'none', 'none', 'inline', 'named'),
          typename: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
        })
        .map(({ wrap, typename }) => {
          const inner = join(typename ? [...pieces, { text: '__typename', variables: [], fragments: [] }] : pieces);
          if (wrap === 'inline') return { ...inner, text: `{ ... on ${type.name} { ${inner.text} } }` };
          if (wrap === 'named') {
            fragmentCounter += 1;
            const name = `F${fragmentCounter}`;
            return {
              text: `{ ...${name} }`,
              variables: inner.variables,
              fragments: [...inner.fragments, `fragment ${name} on ${type.name} { ${inner.text} }`],
            };
          }
          return { ...inner, text: `{ ${inner.text} }` };
        }),
    );
}

export interface GeneratedQuery {
  query: string;
  variables: Record<string, unknown>;
}

/** A query document over the schema's root query fields, with its variables. */
export function generatedQuery(context: FuzzContext): fc.Arbitrary<GeneratedQuery> {
  const root = context.schema.getQueryType()!;
  return fc.integer({ min: 1, max: 3 }).chain((depth) =>
    selectionSet(context, root, depth).map((piece) => {
      // A field repeated as is repeats its variables: each defined once.
      const unique = [...new Map(piece.variables.map((v) => [v.name, v])).values()];
      const definitions = unique.map((v) => v.definition);
      const variables: Record<string, unknown> = {};
      for (const v of unique) if ('value' in v) variables[v.name] = v.value;
      return {
        query: `query${definitions.length > 0 ? `(${definitions.join(', ')})` : ''} ${piece.text} ${piece.fragments.join(' ')}`,
        variables,
      };
    }),
  );
}
