import { apiError } from '../runtime/errors.ts'
import type { PaypalApiError } from '../runtime/errors.ts'
import { isJsonObject } from '../runtime/validation.ts'
import type { JsonObject } from '../runtime/validation.ts'

export interface PatchOperation {
  op: 'add' | 'replace' | 'remove'
  /** The JSON Pointer's reference tokens, unescaped. */
  tokens: string[]
  value?: unknown
}

const OPERATIONS: ReadonlySet<string> = new Set(['add', 'replace', 'remove'])

// "You can update the amount, shipping address, invoice ID, and custom data" (v1 spec,
// payment.update). Other paths (redirect_urls, note_to_payer...) are MALFORMED_REQUEST at PayPal.
const PATCHABLE: ReadonlyArray<readonly string[]> = [
  ['transactions', '0', 'amount'],
  ['transactions', '0', 'item_list', 'shipping_address'],
  ['transactions', '0', 'invoice_number'],
  ['transactions', '0', 'custom']
]

function malformed (): PaypalApiError {
  return apiError('MALFORMED_REQUEST')
}

function pointerTokens (path: unknown): string[] {
  if (typeof path !== 'string' || !path.startsWith('/')) throw malformed()
  return path.slice(1).split('/').map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function isPatchable (tokens: string[]): boolean {
  return PATCHABLE.some((prefix) => prefix.every((token, index) => tokens[index] === token))
}

/** A JSON Patch document (RFC 6902) limited to what PayPal lets a merchant change. */
export function parsePatchRequest (body: unknown): PatchOperation[] {
  if (!Array.isArray(body)) throw malformed()
  return body.map((operation: unknown): PatchOperation => {
    if (!isJsonObject(operation) || typeof operation.op !== 'string' || !OPERATIONS.has(operation.op)) throw malformed()
    const tokens = pointerTokens(operation.path)
    if (!isPatchable(tokens)) throw malformed()
    if (operation.op !== 'remove' && !Object.hasOwn(operation, 'value')) throw malformed()
    return { op: operation.op as PatchOperation['op'], tokens, value: operation.value }
  })
}

function child (parent: unknown, token: string): unknown {
  // Only `transactions` is an array on a patchable path, and its index is always 0.
  if (Array.isArray(parent)) return parent[Number(token)]
  return isJsonObject(parent) && Object.hasOwn(parent, token) ? parent[token] : undefined
}

/**
 * Applies the operations in order to a copy of the payment's transaction and returns it; one
 * operation that cannot apply (replace or remove of nothing) refuses them all.
 */
export function applyPatch (transaction: JsonObject, operations: PatchOperation[]): JsonObject {
  const document = { transactions: [structuredClone(transaction)] }
  for (const { op, tokens, value } of operations) {
    let parent: unknown = document
    for (const token of tokens.slice(0, -1)) {
      let next = child(parent, token)
      // PayPal's own example adds a shipping address to a payment created without an item list.
      if (next === undefined && op === 'add' && isJsonObject(parent)) {
        next = {}
        parent[token] = next
      }
      if (!isJsonObject(next) && !Array.isArray(next)) throw malformed()
      parent = next
    }
    const target = parent as JsonObject
    const last = tokens.at(-1) as string
    if (op !== 'add' && !Object.hasOwn(target, last)) throw malformed()
    if (op === 'remove') delete target[last]
    else target[last] = value
  }
  return document.transactions[0] as JsonObject
}
