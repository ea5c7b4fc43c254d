/**
 * Stored report documents generated from the GraphQL document types: each field missing, null,
 * a value of its declared type, or (with probability `oddness`) one of the value classes a stored
 * document may hold where another is declared. Written as JSON text, so that numbers keep the
 * digits they are written with (jsonb keeps 1.50 and 2^53+1 as written; JavaScript reads them
 * into doubles).
 */
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import type { SeededRandom } from '../../src/seed/vehicles';

/** `oddness` of a document with no odd value at all. */
export const WELL_TYPED = 0;

const STRINGS = [
  '"VF1RFB00X67123456"',
  '""',
  '"quote \\" backslash \\\\ slash /"',
  // a string ending in an escaped backslash, and an escaped backslash before an escaped quote
  '"ends in a backslash \\\\"',
  '"\\\\\\"{[\\\\"',
  '"\\u0001\\u0007\\b\\t\\n\\u000b\\f\\r\\u001f\\u007f"',
  '"é à ü ß — “curly”"',
  '"\\u2028\\u2029"',
  '"😀 𝄞"',
  '"</script>"',
  '"2026-01-02T03:04:05.678Z"',
  '"a, b: c"',
];
const NUMBERS = ['0', '12', '4.5', '-3.25', '1234567.125', '5.032500000000001', '0.6604999999999999', '2019', '0.001', '99999999'];
const BOOLEANS = ['true', 'false'];

/** What a stored document may hold where another type is declared. */
const ODD_VALUES = [
  '"12"',
  '" 12 "',
  '"0x1A"',
  '"NaN"',
  '"Infinity"',
  '"-0"',
  '"1e21"',
  '1.50',
  '-0',
  '-0.0',
  '1e21',
  '1e-7',
  '0.000001',
  '9007199254740993',
  '123456789012345678901234',
  '1e400',
  '0.1000000000000000055511151231257827',
  'true',
  'false',
  '{}',
  '{"a": 1, "b": [true, null]}',
  '[]',
  '[1, "a", null, 2.50]',
  '[[[[[]]]]]',
  '{"10": 1, "a": 2}',
  '{"constructor": 1}',
  'null',
  '"x"',
  '7',
];

function jsonValue(random: SeededRandom, depth = 0): string {
  const roll = random.next();
  if (depth > 2 || roll < 0.4) return random.pick([...STRINGS, ...NUMBERS, ...BOOLEANS, 'null']);
  if (roll < 0.7) {
    const members = Array.from(
      { length: random.int(0, 3) },
      (_, i) => `"${random.pick(['k', 'name', 'price', 'z'])}${i}": ${jsonValue(random, depth + 1)}`,
    );
    return `{${members.join(', ')}}`;
  }
  return `[${Array.from({ length: random.int(0, 3) }, () => jsonValue(random, depth + 1)).join(', ')}]`;
}

function valueOf(type: GraphQLOutputType, random: SeededRandom, oddness: number, depth: number): string {
  if (random.next() < oddness) return random.pick(ODD_VALUES);
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const items = Array.from({ length: random.int(0, 3) }, () =>
      random.bool(0.1) ? 'null' : valueOf(nullable.ofType, random, oddness, depth + 1),
    );
    return `[${items.join(', ')}]`;
  }
  const named = getNamedType(type);
  if (isObjectType(named)) return objectOf(named, random, oddness, depth + 1);
  switch (named.name) {
    case 'String':
      return random.pick(STRINGS);
    case 'Float':
      return random.pick(NUMBERS);
    case 'Boolean':
      return random.pick(BOOLEANS);
    default:
      return jsonValue(random);
  }
}

function objectOf(type: GraphQLObjectType, random: SeededRandom, oddness: number, depth: number): string {
  const members: string[] = [];
  for (const field of Object.values(type.getFields())) {
    const roll = random.next();
    if (roll < 0.12) continue;
    members.push(`"${field.name}": ${roll < 0.17 ? 'null' : valueOf(field.type, random, oddness, depth)}`);
  }
  // Keys the schema does not know: left out of every answer.
  if (random.bool(0.2)) members.push(`"extra_${random.int(0, 9)}": ${jsonValue(random)}`);
  return `{${members.join(', ')}}`;
}

export function generatedDocument(
  schema: GraphQLSchema,
  random: SeededRandom,
  oddness: number,
): { data: string; state: string; real_costs: string | null } {
  const type = (name: string) => schema.getType(name) as GraphQLObjectType;
  return {
    data: objectOf(type('ReportData'), random, oddness, 0),
    state: objectOf(type('ReportState'), random, oddness, 0),
    real_costs: random.bool(0.2) ? null : objectOf(type('RealCosts'), random, oddness, 0),
  };
}
