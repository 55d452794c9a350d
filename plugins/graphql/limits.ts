import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit'
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases'
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives'
import type { FastifyInstance } from 'fastify'
import {
  GraphQLError, Kind, NoSchemaIntrospectionCustomRule, specifiedRules, validate,
  type DocumentNode, type GraphQLSchema, type SelectionSetNode, type ValidationContext, type ValidationRule
} from 'graphql'

/*
 * Bounded work per GraphQL request. One document may not multiply work: 500 aliased
 * createPayment mutations made 500 payments. Each limit is a validation rule (the
 * graphql-armor ones, and root fields per operation here), checked in mercurius'
 * preValidation hook so it holds whoever registered mercurius; the batch size is checked
 * before each execution.
 */

export interface GraphqlLimits {
  /** Aliases per operation. */
  maxAliases: number
  /** Fields at the root of a query (aliases of one field count apart). */
  maxRootFields: number
  /** Fields at the root of a mutation: each may create or change a payment. */
  maxMutationFields: number
  /** graphql-armor's cost (objects 2, scalars 1, times 1.5 per level). */
  maxCost: number
  maxDirectives: number
  /** Operations in one batched request (when mercurius allows batches). */
  maxBatch: number
  /** Schema introspection (__schema, __type). Default: off in production. */
  introspection: boolean
  /** "Did you mean ...?" in validation errors, which reveal the schema. Default: off in production. */
  suggestions: boolean
}

export const DEFAULT_LIMITS: Readonly<Omit<GraphqlLimits, 'introspection' | 'suggestions'>> = Object.freeze({
  maxAliases: 15,
  maxRootFields: 15,
  maxMutationFields: 3,
  maxCost: 5000,
  maxDirectives: 10,
  maxBatch: 10
})

export function defaultLimits (): GraphqlLimits {
  const development = process.env.NODE_ENV !== 'production'
  return { ...DEFAULT_LIMITS, introspection: development, suggestions: development }
}

/** Counts the root fields of each operation, fragments spread at the root included. */
function maxRootFieldsRule (limit: number, mutationLimit: number): ValidationRule {
  return (context: ValidationContext) => {
    const count = (selectionSet: SelectionSetNode, seen: Set<string>): number => selectionSet.selections.reduce((total, selection) => {
      if (selection.kind === Kind.FIELD) return total + (selection.name.value.startsWith('__') ? 0 : 1)
      if (selection.kind === Kind.INLINE_FRAGMENT) return total + count(selection.selectionSet, seen)
      const name = selection.name.value
      const fragment = context.getFragment(name)
      if (fragment === undefined || fragment === null || seen.has(name)) return total
      return total + count(fragment.selectionSet, new Set([...seen, name]))
    }, 0)
    return {
      OperationDefinition (operation) {
        const fields = count(operation.selectionSet, new Set())
        const allowed = operation.operation === 'mutation' ? mutationLimit : limit
        if (fields > allowed) {
          context.reportError(new GraphQLError(`The ${operation.operation} has ${fields} root fields; at most ${allowed} are allowed.`, { nodes: [operation] }))
        }
      }
    }
  }
}

const SUGGESTION = / ?Did you mean [^?]*\?/g

function validationError (errors: readonly GraphQLError[]): Error {
  // The shape mercurius gives its own validation errors: a 400 listing them.
  return Object.assign(new Error('Graphql validation error'), { code: 'MER_ERR_GQL_VALIDATION', statusCode: 400, errors })
}

/** Adds the limits to the application's GraphQL endpoint (mercurius hooks). */
export function addLimits (app: FastifyInstance, limits: GraphqlLimits): void {
  const rules: ValidationRule[] = [
    maxAliasesRule({ n: limits.maxAliases }) as unknown as ValidationRule,
    maxRootFieldsRule(limits.maxRootFields, limits.maxMutationFields),
    costLimitRule({ maxCost: limits.maxCost }) as unknown as ValidationRule,
    maxDirectivesRule({ n: limits.maxDirectives }) as unknown as ValidationRule
  ]
  if (!limits.introspection) rules.push(NoSchemaIntrospectionCustomRule)
  app.graphql.addHook('preValidation', async function paywireGraphqlLimits (schema: GraphQLSchema, document: DocumentNode) {
    // A query that is not a string reaches here as whatever JSON was sent.
    if (document === null || typeof document !== 'object' || !Array.isArray(document.definitions)) {
      throw validationError([new GraphQLError('The query must be a GraphQL document as a string.')])
    }
    // The specified rules too, so that their messages lose their suggestions when asked.
    const errors = validate(schema, document, limits.suggestions ? rules : [...specifiedRules, ...rules])
    if (errors.length === 0) return
    throw validationError(limits.suggestions
      ? errors
      : errors.map((error) => new GraphQLError(error.message.replace(SUGGESTION, ''), { nodes: error.nodes })))
  })
  app.graphql.addHook('preExecution', async function paywireGraphqlBatchLimit (_schema, _document, context) {
    const count = (context as { operationsCount?: number }).operationsCount ?? 1
    if (count > limits.maxBatch) {
      throw validationError([new GraphQLError(`A batch of ${count} operations; at most ${limits.maxBatch} are allowed.`)])
    }
  })
}
