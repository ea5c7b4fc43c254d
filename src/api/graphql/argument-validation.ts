/**
 * The validation pass on GraphQL: every field that takes arguments checks them (their declared
 * rules, then the rules between them) before its resolver runs, and reports every failure in one
 * BAD_USER_INPUT. Applied to the built schema here rather than as a type-graphql middleware on
 * every field: only fields with arguments pay for it.
 *
 * The failure is a rejected promise, never a synchronous throw: graphql-js 16 abandons the
 * promises of a list's earlier items when a later item throws synchronously, and those items'
 * own failures (the same field, the same arguments) then reject with no handler. That rejection
 * ended the process (`{ users { items { dealership { name } reports(order_by: ",") { total } } } }`).
 */
import { defaultFieldResolver, isObjectType, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { RequestContext } from '../../features/context';
import { invalidInput } from '../../shared/errors';
import { checkArgumentValues } from '../contract/check-arguments';

/**
 * Operations whose root field's arguments were checked before execution, by the same pass with
 * their own error locations: the REST routes' fixed documents (rest/rest-documents.ts). Checking
 * them again would cost a second pass and could only agree.
 */
const checkedBeforeExecution = new WeakSet<OperationDefinitionNode>();

export function rootArgumentsCheckedBeforeExecution(document: DocumentNode): DocumentNode {
  for (const definition of document.definitions) if (definition.kind === 'OperationDefinition') checkedBeforeExecution.add(definition);
  return document;
}

export function validateArgumentsBeforeResolving(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const isRoot = type === schema.getQueryType() || type === schema.getMutationType();
      field.resolve = (source, args: Record<string, unknown>, context: RequestContext, info) => {
        if (!(isRoot && checkedBeforeExecution.has(info.operation))) {
          const failures = checkArgumentValues(field.args, args);
          if (failures.length > 0) return Promise.reject(invalidInput(failures));
        }
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
