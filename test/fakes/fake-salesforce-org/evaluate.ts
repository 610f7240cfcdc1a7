import { parseQuery, type Query } from '@jetstreamapp/soql-parser-js';

import type { JsonOrg } from './org.ts';
import { createOrgView, type OrgRecord } from './org-view.ts';
import { compileQuery } from './query.ts';
import { SoqlError } from './soql-error.ts';

/**
 * Evaluates one SOQL text over a JSON org and answers what Salesforce's REST query endpoint
 * answers: `{ totalSize, done, records }`, or throws a SoqlError (HTTP 400) for a query Salesforce
 * would refuse or the fake cannot evaluate. `SELECT COUNT() FROM …` answers the count as
 * totalSize with no records.
 */
export interface QueryAnswer {
  totalSize: number;
  done: true;
  records: OrgRecord[];
}

export interface EvaluateOptions {
  /** The clock relative date literals (TODAY, LAST_N_DAYS:n) are read against. */
  now: number;
  /** REST API version of the request, `62.0`. */
  version: string;
}

function parse(soql: string): Query {
  try {
    return parseQuery(soql);
  } catch (error) {
    throw new SoqlError('MALFORMED_QUERY', (error as Error).message);
  }
}

export function evaluateSoql(org: JsonOrg, soql: string, options: EvaluateOptions): QueryAnswer {
  const query = parse(soql);
  if (query.sObject === undefined) throw new SoqlError('MALFORMED_QUERY', 'unexpected token: missing FROM object');
  const view = createOrgView(org);
  const object = view.object(query.sObject);
  const context = { view, now: options.now, version: options.version };
  const [first, ...others] = query.fields ?? [];
  const isCount = first?.type === 'FieldFunctionExpression' && first.functionName.toUpperCase() === 'COUNT' && first.parameters.length === 0;
  if (isCount) {
    if (others.length > 0) throw new SoqlError('MALFORMED_QUERY', 'COUNT() must be the only element in the SELECT list');
    const counted = compileQuery(context, object, { ...query, fields: [] });
    return { totalSize: counted.select(view.rows(object.name)).length, done: true, records: [] };
  }
  const compiled = compileQuery(context, object, query);
  const records = compiled.select(view.rows(object.name)).map(compiled.shape);
  return { totalSize: records.length, done: true, records };
}
