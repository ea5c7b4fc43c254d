/**
 * type-graphql runs every `@FieldResolver` through a wrapper that, on each call, looks the
 * resolver's instance up in its container (a linear search), rebuilds the parameter list from
 * its metadata (sorting it again) and enters the middleware chain. A page's relations are resolved
 * once per row: a GraphQL page of 100 with `dealership` and `profile` makes 200 such calls,
 * measured at 2-7 % of that request's CPU.
 *
 * A field resolver that takes only `@Root()`, `@Ctx()` and `@Info()` (whole, without a property
 * name or a type to convert to), with no middleware and no roles, has nothing for that wrapper to
 * do: its field calls the method directly, on one instance of its class, with the same arguments.
 * Every other field resolver (arguments to convert, middlewares, authorization) keeps type-graphql's.
 */
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

type ParamMetadata = NonNullable<ReturnType<typeof getMetadataStorage>['fieldResolvers'][number]['params']>[number];
type Pick = (root: unknown, context: unknown, info: unknown) => unknown;

/** What a plain parameter passes to the method; undefined when type-graphql must build it. */
function pickerOf(param: ParamMetadata): Pick | undefined {
  if (param.kind === 'root' && !param.propertyName && !param.getType) return (root) => root;
  if (param.kind === 'context' && !param.propertyName) return (_root, context) => context;
  if (param.kind === 'info') return (_root, _context, info) => info;
  return undefined;
}

/** A resolver calling `method` with the parameters in their positions, without an array per call for up to three. */
function directResolver(
  instance: object,
  method: (...params: unknown[]) => unknown,
  picks: Pick[],
): GraphQLFieldResolver<unknown, unknown> {
  const [a, b, c] = picks;
  switch (picks.length) {
    case 0:
      return () => method.call(instance);
    case 1:
      return (root, _args, context, info) => method.call(instance, a!(root, context, info));
    case 2:
      return (root, _args, context, info) => method.call(instance, a!(root, context, info), b!(root, context, info));
    case 3:
      return (root, _args, context, info) =>
        method.call(instance, a!(root, context, info), b!(root, context, info), c!(root, context, info));
    default:
      return (root, _args, context, info) =>
        method.apply(
          instance,
          picks.map((pick) => pick(root, context, info)),
        );
  }
}

/**
 * Replaces, in a schema type-graphql built from `resolverClasses`, the wrapper of every plain field
 * resolver with a direct call. Run before anything else wraps the fields' resolvers.
 * Returns the names of the fields changed (`Type.field`).
 */
export function callPlainFieldResolversDirectly(schema: GraphQLSchema, resolverClasses: readonly unknown[]): string[] {
  const storage = getMetadataStorage();
  const instances = new Map<unknown, Record<string, unknown>>();
  const changed: string[] = [];
  for (const metadata of storage.fieldResolvers) {
    if (metadata.kind !== 'external' || !resolverClasses.includes(metadata.target)) continue;
    if ((metadata.middlewares?.length ?? 0) > 0 || (metadata.roles !== undefined && metadata.roles !== null)) continue;
    // A class that takes constructor arguments is made by a container: leave it to type-graphql.
    if (metadata.target.length > 0) continue;
    const params = [...(metadata.params ?? [])].sort((x, y) => x.index - y.index);
    if (params.some((param, position) => param.index !== position)) continue;
    const picks = params.map(pickerOf);
    if (picks.some((pick) => pick === undefined)) continue;
    const typeClass = metadata.getObjectType?.();
    const typeName = storage.objectTypes.find((objectType) => objectType.target === typeClass)?.name;
    const type = typeName ? schema.getType(typeName) : undefined;
    if (!isObjectType(type)) continue;
    const field = type.getFields()[metadata.schemaName];
    if (!field) continue;
    let instance = instances.get(metadata.target);
    if (!instance) {
      instance = new (metadata.target as new () => Record<string, unknown>)();
      instances.set(metadata.target, instance);
    }
    const method = instance[metadata.methodName];
    if (typeof method !== 'function') continue;
    field.resolve = directResolver(instance, method as (...params: unknown[]) => unknown, picks as Pick[]);
    changed.push(`${type.name}.${field.name}`);
  }
  return changed;
}
