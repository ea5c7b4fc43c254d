/**
 * Field resolvers that take only the parent, the context and the info are called directly, not
 * through type-graphql's per-call wrapper (api/graphql/direct-field-resolvers.ts); any that needs
 * the wrapper (an argument to convert, a middleware, a parameter to convert) keeps it.
 */
import 'reflect-metadata';
import { graphql, type GraphQLSchema } from 'graphql';
import {
  Arg,
  buildSchema,
  Ctx,
  Field,
  FieldResolver,
  Info,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
  UseMiddleware,
  type MiddlewareFn,
} from 'type-graphql';
import { callPlainFieldResolversDirectly } from '../../src/api/graphql/direct-field-resolvers';
import { buildAppSchema } from '../../src/api/graphql/schema';

@ObjectType('Parent', { simpleResolvers: true })
class Parent {
  @Field(() => String)
  name!: string;
}

/** The parent as the app's relation resolvers declare it: an interface, given as it is. */
interface ParentRow {
  name: string;
}

const middlewareCalls: string[] = [];
const countCalls: MiddlewareFn = async ({ info }, next) => {
  middlewareCalls.push(info.fieldName);
  return next();
};

@Resolver(() => Parent)
class ParentFieldsResolver {
  @FieldResolver(() => String)
  plain(@Root() parent: ParentRow, @Ctx() context: { suffix: string }, @Info() info: { fieldName: string }): string {
    return `${parent.name}${context.suffix}:${info.fieldName}`;
  }

  // Parameters in another order than root, context, info.
  @FieldResolver(() => String)
  reordered(@Ctx() context: { suffix: string }, @Root() parent: ParentRow): string {
    return `${context.suffix}${parent.name}`;
  }

  @FieldResolver(() => String)
  withArgument(@Root() parent: ParentRow, @Arg('times', () => Int) times: number): string {
    return parent.name.repeat(times);
  }

  @UseMiddleware(countCalls)
  @FieldResolver(() => String)
  withMiddleware(@Root() parent: ParentRow): string {
    return parent.name.toUpperCase();
  }

  @FieldResolver(() => String)
  async asynchronous(@Root() parent: ParentRow): Promise<string> {
    return Promise.resolve(`later ${parent.name}`);
  }

  // Declared as the class: type-graphql makes the plain parent an instance of it first.
  @FieldResolver(() => String)
  converted(@Root() parent: Parent): string {
    return parent instanceof Parent ? 'an instance' : 'a plain object';
  }
}

@Resolver()
class ParentQueryResolver {
  @Query(() => Parent)
  parent(): Parent {
    return { name: 'p' };
  }
}

const RESOLVERS = [ParentQueryResolver, ParentFieldsResolver] as const;

async function testSchema(): Promise<{ schema: GraphQLSchema; changed: string[] }> {
  const schema = await buildSchema({ resolvers: [...RESOLVERS], validate: false, emitSchemaFile: false });
  return { schema, changed: callPlainFieldResolversDirectly(schema, RESOLVERS) };
}

describe('field resolvers called directly', () => {
  it('replaces only the wrappers of resolvers taking root, context and info', async () => {
    const { changed } = await testSchema();
    expect(changed.sort()).toEqual(['Parent.asynchronous', 'Parent.plain', 'Parent.reordered']);
  });

  it('answers as type-graphql did: same values in the same positions, promises awaited, arguments and middlewares kept', async () => {
    const wrapped = await buildSchema({ resolvers: [...RESOLVERS], validate: false, emitSchemaFile: false });
    const { schema: direct } = await testSchema();
    const source = '{ parent { name plain reordered withArgument(times: 3) withMiddleware asynchronous converted } }';
    middlewareCalls.length = 0;
    const before = await graphql({ schema: wrapped, source, contextValue: { suffix: '!' } });
    const after = await graphql({ schema: direct, source, contextValue: { suffix: '!' } });
    expect(after).toEqual(before);
    expect(after).toEqual({
      data: {
        parent: {
          name: 'p',
          plain: 'p!:plain',
          reordered: '!p',
          withArgument: 'ppp',
          withMiddleware: 'P',
          asynchronous: 'later p',
          converted: 'an instance',
        },
      },
    });
    expect(middlewareCalls).toEqual(['withMiddleware', 'withMiddleware']);
  });

  it("covers the relations a page resolves on every row of the app's schema", async () => {
    const schema = await buildAppSchema();
    const changed = callPlainFieldResolversDirectly(schema, []);
    expect(changed).toEqual([]);
    // The app's schema already had them replaced: their resolvers are no longer type-graphql's wrapper.
    for (const [type, field] of [
      ['ReportCompact', 'dealership'],
      ['ReportCompact', 'profile'],
      ['Report', 'dealership'],
    ] as const) {
      const resolve =
        schema.getType(type) &&
        (schema.getType(type) as { getFields(): Record<string, { resolve?: unknown }> }).getFields()[field]!.resolve;
      expect(String(resolve)).toContain('method.call(instance');
    }
  });
});
