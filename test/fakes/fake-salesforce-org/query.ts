import type { FieldType as SelectedField, OrderByClause, QueryBase } from '@jetstreamapp/soql-parser-js';

import { comparable } from './condition.ts';
import type { Relationship } from './org.ts';
import { type FieldInfo, type ObjectInfo, type OrgRecord, type OrgView, readField } from './org-view.ts';
import { compilePath, parentRecord } from './paths.ts';
import { SoqlError, unsupported } from './soql-error.ts';
import { compileWhere } from './where.ts';

/**
 * A SELECT over one object, compiled against the org's names before any record is read (so an
 * unknown field fails even on an empty org): which records match, in which order, and the shape
 * of each answered record. Child subqueries are the same thing over the children of one record.
 */
export interface QueryContext {
  view: OrgView;
  now: number;
  /** REST version of the request (`62.0`), for the records' `attributes.url`. */
  version: string;
}

export interface CompiledQuery {
  object: ObjectInfo;
  /** The matching records of `rows`, ordered, offset and limited. */
  select(rows: OrgRecord[]): OrgRecord[];
  /** A record as Salesforce answers it: `attributes`, then the selected fields in order. */
  shape(record: OrgRecord): OrgRecord;
}

type Node =
  | { kind: 'field'; field: FieldInfo }
  | { kind: 'parent'; relationship: Relationship; object: ObjectInfo; nodes: Node[] }
  | { kind: 'child'; relationship: Relationship; query: CompiledQuery };

type ParentNode = Extract<Node, { kind: 'parent' }>;

const nameOf = (node: Node) => (node.kind === 'field' ? node.field.name : node.relationship.name);

function addField(context: QueryContext, nodes: Node[], object: ObjectInfo, dotted: string): void {
  const path = compilePath(context.view, object, dotted);
  let level = nodes;
  for (const relationship of path.relationships) {
    let parent = level.find((node): node is ParentNode => node.kind === 'parent' && node.relationship === relationship);
    if (parent === undefined) {
      parent = { kind: 'parent', relationship, object: context.view.object(relationship.to), nodes: [] };
      level.push(parent);
    }
    level = parent.nodes;
  }
  if (level.some((node) => node.kind === 'field' && node.field === path.field)) throw new SoqlError('MALFORMED_QUERY', `duplicate field selected: ${dotted}`);
  level.push({ kind: 'field', field: path.field });
}

function compileSelection(context: QueryContext, object: ObjectInfo, fields: SelectedField[]): Node[] {
  const nodes: Node[] = [];
  for (const selected of fields) {
    if (selected.type === 'Field' || selected.type === 'FieldRelationship') {
      if ('objectPrefix' in selected || ('alias' in selected && selected.alias !== undefined)) throw unsupported('a field alias or object prefix');
      addField(context, nodes, object, selected.type === 'Field' ? selected.field : [...selected.relationships, selected.field].join('.'));
    } else if (selected.type === 'FieldSubquery') {
      const { subquery } = selected;
      if (subquery.sObjectPrefix !== undefined) throw unsupported('a prefixed relationship in a subquery');
      const relationship = context.view.relationship('child', object, subquery.relationshipName);
      if (nodes.some((node) => node.kind === 'child' && node.relationship === relationship)) {
        throw new SoqlError('MALFORMED_QUERY', `duplicate subquery: ${relationship.name}`);
      }
      nodes.push({ kind: 'child', relationship, query: compileQuery(context, context.view.object(relationship.to), subquery) });
    } else {
      throw unsupported(selected.type === 'FieldTypeof' ? 'TYPEOF' : `the function ${selected.rawValue ?? selected.functionName} in SELECT`);
    }
  }
  return nodes;
}

function compileOrder(context: QueryContext, object: ObjectInfo, orderBy: OrderByClause | OrderByClause[] | undefined) {
  const keys = (orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy]).map((clause) => {
    if (!('field' in clause)) throw unsupported('a function in ORDER BY');
    // Ascending unless DESC; nulls first unless NULLS LAST, whatever the direction (docs/protocols.md §2 "SOQL").
    return { path: compilePath(context.view, object, clause.field), sign: clause.order === 'DESC' ? -1 : 1, nullsLast: clause.nulls === 'LAST' };
  });
  return (a: OrgRecord, b: OrgRecord): number => {
    for (const { path, sign, nullsLast } of keys) {
      const left = comparable(path, path.read(a));
      const right = comparable(path, path.read(b));
      if (left === right) continue;
      if (left === null || right === null) return (left === null) === nullsLast ? 1 : -1;
      return (left < right ? -1 : 1) * sign;
    }
    return 0;
  };
}

function shapeWith(context: QueryContext, object: ObjectInfo, nodes: Node[], record: OrgRecord): OrgRecord {
  const id = readField(record, context.view.field(object, 'Id'));
  const url = typeof id === 'string' ? { url: `/services/data/v${context.version}/sobjects/${object.name}/${id}` } : {};
  const shaped: OrgRecord = { attributes: { type: object.name, ...url } };
  for (const node of nodes) {
    if (node.kind === 'field') shaped[nameOf(node)] = readField(record, node.field);
    else if (node.kind === 'parent') {
      const parent = parentRecord(context.view, record, node.relationship);
      shaped[nameOf(node)] = parent === undefined ? null : shapeWith(context, node.object, node.nodes, parent);
    } else {
      const children = typeof id === 'string' ? node.query.select(context.view.referring(node.relationship.to, node.relationship.field, id)) : [];
      // An empty child relationship is null, not an empty list.
      shaped[nameOf(node)] = children.length === 0 ? null : { totalSize: children.length, done: true, records: children.map(node.query.shape) };
    }
  }
  return shaped;
}

export function compileQuery(context: QueryContext, object: ObjectInfo, query: QueryBase): CompiledQuery {
  const clauses = {
    GROUP_BY: query.groupBy,
    HAVING: query.having,
    WITH: query.withDataCategory ?? query.withSecurityEnforced ?? query.withAccessLevel,
    FOR: query.for,
  };
  for (const [clause, value] of Object.entries(clauses)) if (value !== undefined) throw unsupported(clause.replace('_', ' '));
  if (query.update !== undefined || query.usingScope !== undefined || query.sObjectAlias !== undefined)
    throw unsupported('UPDATE, USING SCOPE or an object alias');
  const nodes = compileSelection(context, object, query.fields ?? []);
  const where = compileWhere(context.view, object, query.where, context.now);
  const order = compileOrder(context, object, query.orderBy);
  const offset = query.offset ?? 0;
  return {
    object,
    select: (rows) => {
      const matched = rows.filter(where).sort(order).slice(offset);
      return query.limit === undefined ? matched : matched.slice(0, query.limit);
    },
    shape: (record) => shapeWith(context, object, nodes, record),
  };
}
