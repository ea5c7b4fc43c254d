/**
 * A GraphQL `report` query answered from the full report's kept answer (api/stored-answers.ts):
 * when the operation's only root field is `report` and its selection is exactly the REST route's
 * (the spec's full report, printed alike: no fragment, alias or directive inside), the field's
 * JSON is the REST body byte for byte (test/rest/stored-answers.test.ts compares them), so the
 * kept body stands for it and `stringifyResult` writes it as it is. Any other document, or a
 * report whose answer is not kept for its current version, is executed as always; a result
 * executed for such a selection without errors is kept for the next request (one JSON.stringify
 * of the field, on that request only).
 *
 * Such a document is also handed to `answersFirst` (kept-answers-first.ts), which answers it
 * before Apollo when it is sent again; a request it handed on after looking the report up is
 * answered from that lookup here, not from a second one.
 */
import { getArgumentValues, print, type FieldNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { requireOrganization } from '../../features/context';
import { reportAnswers, reportRouteSelection, StoredJson } from '../stored-answers';
import type { StoredAnswering } from './compiled-execution';
import type { KeptAnswersFirst } from './kept-answers-first';
import { cachedOperationCost } from './operation-cost';
import { operationPoints } from './plugins/operation-limits';

export function storedReportAnswers(schema: GraphQLSchema, answersFirst?: KeptAnswersFirst): StoredAnswering {
  const answers = reportAnswers(schema);
  const restSelection = reportRouteSelection(schema);
  const restSelectionText = print(restSelection);
  const reportField = schema.getQueryType()!.getFields().report!;
  // Judged once per parsed document (Apollo keeps them): most differ at once in their number of fields.
  const judged = new WeakMap<SelectionSetNode, boolean>();
  const selectsTheRestAnswer = (selectionSet: SelectionSetNode): boolean => {
    let same = judged.get(selectionSet);
    if (same === undefined) {
      same = selectionSet.selections.length === restSelection.selections.length && print(selectionSet) === restSelectionText;
      judged.set(selectionSet, same);
    }
    return same;
  };

  return async (context, operation, variables, sent) => {
    const field = onlyReportField(operation);
    if (!field?.selectionSet || !context.principal || !selectsTheRestAnswer(field.selectionSet)) return undefined;
    if (answersFirst) {
      const cost = cachedOperationCost(schema, sent.document, operation, variables);
      if (cost)
        answersFirst.recognize(context.principal.organizationId, sent.source, sent.operationName, operation, field, operationPoints(cost));
    }
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(reportField, field, variables);
    } catch {
      return undefined; // execution answers the error
    }
    // Failing (the database away), or not found (perhaps not yet on a replica): the resolver asks
    // again, and its error is answered as every resolver's is.
    const before = answersFirst?.lookedUpBefore(context);
    const lookup = before ? before.lookup : await answers.lookup(context, requireOrganization(context), args).catch(() => null);
    if (!lookup) return undefined;
    const key = field.alias?.value ?? field.name.value;
    if ('body' in lookup) return { result: { data: { [key]: new StoredJson(lookup.body) } } };
    return {
      keep: (result) => {
        const value = result.data?.[key];
        if (!result.errors && value !== null && typeof value === 'object') lookup.keep(JSON.stringify(value));
      },
    };
  };
}

/** The operation's one root field when it is a `report` query without directives. */
function onlyReportField(operation: OperationDefinitionNode): FieldNode | undefined {
  if (operation.operation !== 'query' || operation.directives?.length || operation.selectionSet.selections.length !== 1) return undefined;
  const field = operation.selectionSet.selections[0]!;
  if (field.kind !== 'Field' || field.name.value !== 'report' || field.directives?.length) return undefined;
  return field;
}
