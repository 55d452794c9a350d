import { issue, PaypalV2Error, unprocessable } from './errors.ts'
import type { Orders } from './operations.ts'
import { isExpired } from './operations.ts'
import type { StoredOrder } from './store.ts'
import { isObject, parseCreateOrder } from './validation.ts'

type Json = Record<string, unknown>
type Op = 'add' | 'replace' | 'remove'

/**
 * What PATCH /v2/checkout/orders/{id} may change, and how: the "patchable attributes" table of
 * https://developer.paypal.com/docs/api/orders/v2/#orders_patch (payer, payee, payment_instruction and
 * supplementary data are not kept by the simulator, so not patchable here).
 */
const UNIT_FIELDS: Record<string, readonly Op[]> = {
  custom_id: ['replace', 'add', 'remove'],
  description: ['replace', 'add', 'remove'],
  invoice_id: ['replace', 'add', 'remove'],
  soft_descriptor: ['replace', 'remove'],
  amount: ['replace'],
  items: ['replace', 'add', 'remove'],
  'shipping/name': ['replace', 'add'],
  'shipping/address': ['replace', 'add'],
  'shipping/type': ['replace', 'add']
}
const UNIT_PATH = /^\/purchase_units\/@reference_id=='([^']*)'\/(.+)$/

function refused (issueName: string, index: number, field: string): PaypalV2Error {
  return new PaypalV2Error('INVALID_REQUEST', [issue(issueName, { field: `/${index}/${field}`, location: 'body' })])
}

interface Operation { op: Op, path: string, value: unknown }

/** The body as a list of JSON Patch operations, or PayPal's refusal. */
function parseOperations (body: unknown): Operation[] {
  if (!Array.isArray(body) || body.length === 0) throw new PaypalV2Error('INVALID_REQUEST', [issue('MALFORMED_REQUEST_JSON', { location: 'body' })])
  return body.map((entry: unknown, index) => {
    if (!isObject(entry)) throw refused('INVALID_PARAMETER_SYNTAX', index, 'op')
    const { op, path, value } = entry
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw refused('INVALID_PARAMETER_VALUE', index, 'op')
    if (typeof path !== 'string' || path === '') throw unprocessable('PATCH_PATH_REQUIRED')
    if (op !== 'remove' && value === undefined) throw unprocessable('PATCH_VALUE_REQUIRED')
    return { op, path, value }
  })
}

/** Sets, replaces or removes `key` of `target` (a nested path like `shipping/name` walks objects, made as needed). */
function applyTo (target: Json, field: string, operation: Operation, index: number): void {
  const keys = field.split('/')
  const last = keys.pop() as string
  let holder = target
  for (const key of keys) {
    if (!isObject(holder[key])) holder[key] = {}
    holder = holder[key] as Json
  }
  const present = holder[last] !== undefined
  if ((operation.op === 'add' && present) || (operation.op !== 'add' && !present)) throw refused('INVALID_PATCH_OPERATION', index, 'op')
  if (operation.op === 'remove') delete holder[last]
  else holder[last] = operation.value
}

/**
 * PATCH /v2/checkout/orders/{id} before the order is completed: the operations apply in order, all or
 * nothing, and the result is checked as a created order is (so a new amount must add up), then 204.
 */
export function patchOrder (orders: Orders, order: StoredOrder, body: unknown): void {
  const operations = parseOperations(body)
  if (order.status === 'COMPLETED' || isExpired(orders, order)) throw unprocessable('ORDER_ALREADY_COMPLETED')
  let intent: unknown = order.intent
  const unit: Json = structuredClone(order.purchaseUnit)
  operations.forEach((operation, index) => {
    if (operation.path === '/intent') {
      if (operation.op !== 'replace') throw refused('INVALID_PATCH_OPERATION', index, 'op')
      intent = operation.value
      return
    }
    const match = UNIT_PATH.exec(operation.path)
    if (match === null) {
      if (operation.path.startsWith('/')) throw refused('FIELD_NOT_PATCHABLE', index, 'path')
      throw unprocessable('INVALID_JSON_POINTER_FORMAT')
    }
    const [, referenceId, field] = match as unknown as [string, string, string]
    if (referenceId !== unit.reference_id) throw unprocessable('REFERENCE_ID_NOT_FOUND')
    if (UNIT_FIELDS[field]?.includes(operation.op) !== true) throw refused('FIELD_NOT_PATCHABLE', index, 'path')
    applyTo(unit, field, operation, index)
  })
  const checked = parseCreateOrder({ intent, purchase_units: [unit] })
  orders.store.counters.ordersUpdated++
  order.intent = checked.intent
  order.purchaseUnit = checked.purchaseUnit
  order.currency = checked.currency
  order.totalMinor = checked.totalMinor
  order.updatedAt = orders.runtime.store.now()
}
