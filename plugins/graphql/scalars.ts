import { Kind, valueFromASTUntyped, type ValueNode } from 'graphql'

/*
 * The custom scalars check the wire format only (a JSON number, a JSON object). What the
 * values mean (a non-negative safe integer, a bounded details object) is checked by the
 * resolvers against the shared TypeBox schemas, so a bad amount is a typed InvalidAmount
 * in the result union instead of a request-level GraphQL error.
 */

function number (value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError('MinorUnits must be a JSON number')
  return value
}

function object (value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError('JSONObject must be a JSON object')
  return value as Record<string, unknown>
}

export const MinorUnitsScalar = {
  serialize: number,
  parseValue: number,
  /** Literals above 2^53 arrive as digits; Number() makes them unsafe integers, which validation rejects. */
  parseLiteral (ast: ValueNode): number {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.FLOAT) throw new TypeError('MinorUnits must be a number literal')
    return Number(ast.value)
  }
}

export const JSONObjectScalar = {
  serialize: object,
  parseValue: object,
  parseLiteral (ast: ValueNode, variables?: Record<string, unknown> | null): Record<string, unknown> {
    if (ast.kind !== Kind.OBJECT) throw new TypeError('JSONObject must be an object literal')
    return object(valueFromASTUntyped(ast, variables))
  }
}
