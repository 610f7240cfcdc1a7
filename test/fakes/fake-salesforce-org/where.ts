import type { Condition, ConditionWithValueQuery, WhereClause } from '@jetstreamapp/soql-parser-js';

import { compileCondition, type Predicate } from './condition.ts';
import type { ObjectInfo, OrgView } from './org-view.ts';
import { compilePath } from './paths.ts';
import { SoqlError, unsupported } from './soql-error.ts';

/**
 * The parser hands WHERE over as a chain (condition, operator, rest) with parentheses as counts on
 * the conditions. This rebuilds the expression from that chain and compiles it to one predicate.
 * SOQL has no precedence between AND and OR: mixing them at one level without parentheses is a
 * malformed query, as Salesforce answers it.
 */
type Token = '(' | ')' | 'AND' | 'OR' | 'NOT' | { condition: ConditionWithValueQuery };

function tokens(clause: WhereClause | undefined): Token[] {
  const out: Token[] = [];
  for (let node = clause; node !== undefined; node = 'right' in node ? node.right : undefined) {
    const left = node.left;
    const opens = left === null ? 0 : (left.openParen ?? 0);
    for (let i = 0; i < opens; i += 1) out.push('(');
    if (left !== null && ('field' in left || 'fn' in left)) {
      out.push({ condition: left });
      for (let i = 0; i < (left.closeParen ?? 0); i += 1) out.push(')');
    }
    if ('operator' in node) out.push(node.operator);
  }
  return out;
}

const conditionText = (condition: ConditionWithValueQuery) =>
  'field' in condition ? condition.field : 'fn' in condition ? (condition.fn.rawValue ?? 'a function') : 'NOT';

function compileLeaf(view: OrgView, object: ObjectInfo, condition: ConditionWithValueQuery, now: number): Predicate {
  if ('valueQuery' in condition) throw unsupported('a semi-join (IN with a subquery)');
  if ('fn' in condition) throw unsupported(`the function ${condition.fn.rawValue ?? condition.fn.functionName ?? ''} in WHERE`);
  if (!('field' in condition)) throw unsupported('this condition');
  return compileCondition(compilePath(view, object, condition.field), condition as Condition, now);
}

export function compileWhere(view: OrgView, object: ObjectInfo, clause: WhereClause | undefined, now: number): Predicate {
  if (clause === undefined) return () => true;
  const list = tokens(clause);
  let at = 0;
  const unexpected = (token: Token | undefined) =>
    new SoqlError(
      'MALFORMED_QUERY',
      `unexpected token: ${token === undefined ? 'end of WHERE' : typeof token === 'string' ? token : conditionText(token.condition)}`,
    );

  function unary(): Predicate {
    const token = list[at];
    at += 1;
    if (token === 'NOT') {
      const inner = unary();
      return (record) => !inner(record);
    }
    if (token === '(') {
      const inner = expression();
      if (list[at] !== ')') throw unexpected(list[at]);
      at += 1;
      return inner;
    }
    if (token === undefined || typeof token === 'string') throw unexpected(token);
    return compileLeaf(view, object, token.condition, now);
  }

  function expression(): Predicate {
    const operands = [unary()];
    const joiner = list[at];
    while (list[at] === 'AND' || list[at] === 'OR') {
      if (list[at] !== joiner) throw unexpected(list[at]);
      at += 1;
      operands.push(unary());
    }
    return joiner === 'OR' ? (record) => operands.some((operand) => operand(record)) : (record) => operands.every((operand) => operand(record));
  }

  const predicate = expression();
  if (at !== list.length) throw unexpected(list[at]);
  return predicate;
}
