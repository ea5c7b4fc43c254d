/**
 * schema.graphql (repo root) is the committed SDL of the GraphQL API. It must be exactly what the
 * code builds, so that a schema change is visible in review and clients never read a stale file.
 */
import { readFileSync } from 'node:fs';
import { buildSchema, findBreakingChanges, findDangerousChanges } from 'graphql';
import {
  OPENAPI_FILE,
  openApiFileText,
  schemaFileText,
  SCHEMA_FILE,
  TYPE_POLICIES_FILE,
  typePoliciesFileText,
} from '../../scripts/emit-schema';
import { buildAppSchema } from '../../src/api/graphql/schema';

describe('schema.graphql', () => {
  it('is identical to the schema the code builds', async () => {
    const built = schemaFileText(await buildAppSchema());
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    if (committed !== built) {
      // Say what differs in GraphQL terms when the SDL parses, so the failure is readable.
      const changes = [
        ...findBreakingChanges(buildSchema(committed), buildSchema(built)),
        ...findDangerousChanges(buildSchema(committed), buildSchema(built)),
      ].map((change) => `  ${change.type}: ${change.description}`);
      // Additions are neither breaking nor dangerous: show the first line that differs as well.
      const [committedLines, builtLines] = [committed.split('\n'), built.split('\n')];
      const line = builtLines.findIndex((text, index) => text !== committedLines[index]);
      changes.push(
        `  first difference at line ${line + 1}: committed ${JSON.stringify(committedLines[line])}, built ${JSON.stringify(builtLines[line])}`,
      );
      throw new Error(`schema.graphql is out of date: run npm run schema:emit and commit the result.\n${changes.join('\n')}`);
    }
    expect(committed).toBe(built);
  });

  it('describes the root operations', () => {
    const schema = buildSchema(readFileSync(SCHEMA_FILE, 'utf8'));
    expect(Object.keys(schema.getQueryType()!.getFields()).sort()).toEqual([
      'dealerships',
      'events',
      'report',
      'reports',
      'user',
      'users',
      'webhookEndpoints',
    ]);
    expect(Object.keys(schema.getMutationType()!.getFields())).toContain('createLead');
  });

  it('examples/apollo-type-policies.ts is up to date (run npm run schema:emit when this fails)', async () => {
    expect(readFileSync(TYPE_POLICIES_FILE, 'utf8')).toBe(typePoliciesFileText(await buildAppSchema()));
  });

  it('openapi.json is identical to the document the service serves (run npm run schema:emit when this fails)', async () => {
    expect(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'))).toEqual(JSON.parse(openApiFileText(await buildAppSchema())));
  });
});
