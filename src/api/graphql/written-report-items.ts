/**
 * A GraphQL `reports` query whose items PostgreSQL writes (api/written-items.ts): when the
 * operation's only root field is `reports` and its page selects `items` once, with fields
 * features/reports/report-item-json.ts writes (no fragment or directive among them), the resolver
 * is asked for their texts, and the executed result gets them as one StoredJson where its empty
 * `items` stands; `stringifyResult` writes it as it is. Any other document is executed as always.
 * test/rest/written-items.test.ts compares both paths on generated selections.
 */
import type { FieldNode, OperationDefinitionNode } from 'graphql';
import type { RequestContext } from '../../features/context';
import type { WrittenField } from '../../features/reports/report-item-json';
import { StoredJson } from '../stored-answers';
import { fieldsOf, writableItems } from '../written-items';
import type { WritingItems } from './compiled-execution';

interface Plan {
  /** the root field's response key, and its page's `items` */
  rootKey: string;
  itemsKey: string;
  select: readonly WrittenField[];
}

export function writtenReportItems(maxAnswerValues: number): WritingItems {
  // Judged once per parsed document (Apollo keeps them).
  const plans = new WeakMap<FieldNode, Plan | null>();
  const planOf = (root: FieldNode): Plan | null => {
    let plan = plans.get(root);
    if (plan === undefined) {
      const page = root.selectionSet && fieldsOf(root.selectionSet);
      const items = page?.filter((field) => field.field === 'items');
      const only = items?.length === 1 ? items[0]! : undefined;
      plan =
        only?.select && writableItems(only.select, maxAnswerValues)
          ? { rootKey: root.alias?.value ?? root.name.value, itemsKey: only.key, select: only.select }
          : null;
      plans.set(root, plan);
    }
    return plan;
  };

  return (context, operation) => {
    const root = onlyReportsField(operation);
    const plan = root && context.principal ? planOf(root) : null;
    if (!plan) return undefined;
    const written: NonNullable<RequestContext['writtenItems']> = { select: plan.select };
    context.writtenItems = written;
    return (result) => {
      const page = result.data?.[plan.rootKey] as Record<string, unknown> | null | undefined;
      if (written.texts && page && Array.isArray(page[plan.itemsKey])) page[plan.itemsKey] = new StoredJson(`[${written.texts.join(',')}]`);
      return result;
    };
  };
}

/** The operation's one root field when it is a `reports` query without directives. */
function onlyReportsField(operation: OperationDefinitionNode): FieldNode | undefined {
  if (operation.operation !== 'query' || operation.directives?.length || operation.selectionSet.selections.length !== 1) return undefined;
  const field = operation.selectionSet.selections[0]!;
  if (field.kind !== 'Field' || field.name.value !== 'reports' || field.directives?.length) return undefined;
  return field;
}
