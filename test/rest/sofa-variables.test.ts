/**
 * What sofa reads from each request (src/api/rest/sofa-endpoints.ts): its derived operation's
 * variables, each looked for in the request on every call. They must be the route's root field's
 * arguments, and at most those of the fields of the type it returns (sofa selects that type
 * whole): a report's derived operation used to carry 229 (every argument of its dealership's
 * users and reports…), ~25 µs of every fetch-one.
 */
import 'reflect-metadata';
import { getNamedType, isObjectType } from 'graphql';
import { createSofaRouter } from 'sofa-api';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { rootFieldOf } from '../../src/api/rest/rest-documents';
import { REST_ROUTES } from '../../src/api/rest/routes';
import { createRoutesSofa } from '../../src/api/rest/sofa-endpoints';

interface DerivedRoute {
  method: string;
  path: string;
  schemas?: { request?: Record<string, { properties?: Record<string, unknown> } | undefined> };
}

describe('sofa’s derived operations', () => {
  it('read only the root field’s arguments (and its own type’s fields’) on every route', async () => {
    const schema = await buildAppSchema();
    const derived = (createSofaRouter(createRoutesSofa(schema)) as unknown as { __routes: DerivedRoute[] }).__routes;
    for (const route of REST_ROUTES) {
      const endpoint = derived.find((d) => d.method === route.method && d.path === route.path);
      expect(endpoint).toBeDefined();
      const read = new Set(Object.values(endpoint!.schemas?.request ?? {}).flatMap((part) => Object.keys(part?.properties ?? {})));
      const root = rootFieldOf(schema, route);
      const returned = getNamedType(root.type);
      const allowed = new Set([
        ...root.args.map((arg) => arg.name),
        ...(isObjectType(returned)
          ? Object.values(returned.getFields()).flatMap((field) => field.args.map((arg) => `${root.name}_${field.name}_${arg.name}`))
          : []),
      ]);
      expect({ route: `${route.method} ${route.path}`, read: [...read].sort() }).toEqual({
        route: `${route.method} ${route.path}`,
        read: [...read].filter((name) => allowed.has(name)).sort(),
      });
      if (route.field === 'Query.report') expect([...read]).toEqual(['report_id']);
      expect(read.size).toBeGreaterThanOrEqual(Math.min(root.args.length, 1));
    }
  });
});
