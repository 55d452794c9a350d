import { newTransactionId } from '../runtime/ids.ts'
import { unprocessable } from './errors.ts'
import { emitAuthorizationEvent, emitCaptureEvent } from './events.ts'
import { HONOR_PERIOD_MS, newCapture, type Orders } from './operations.ts'
import type { StoredAuthorization, StoredCapture } from './store.ts'
import { canBeReauthorized } from './views.ts'

function isOpen (authorization: StoredAuthorization): boolean {
  return authorization.status === 'CREATED' || authorization.status === 'PARTIALLY_CAPTURED'
}

/**
 * Authorizations past their 29-day period are voided, with PAYMENT.AUTHORIZATION.VOIDED ("voided … due to
 * authorization reaching it's 30 day validity period", https://developer.paypal.com/api/rest/webhooks/event-names/).
 * Run before every authorization call and whenever the simulated clock moves.
 */
export function expireAuthorizations (orders: Orders, base: string): void {
  const now = orders.runtime.store.now()
  for (const authorization of orders.store.authorizations.values()) {
    if (!isOpen(authorization) || now <= authorization.expiresAt) continue
    authorization.status = 'VOIDED'
    authorization.updatedAt = now
    emitAuthorizationEvent(orders.webhooks, authorization, base)
  }
}

/** POST /v2/payments/authorizations/{id}/capture: all of what remains, or `amountMinor` of it. */
export function captureAuthorization (orders: Orders, authorization: StoredAuthorization, amountMinor: number | undefined,
  finalCapture: boolean, base: string): StoredCapture {
  if (authorization.status === 'VOIDED') throw unprocessable('AUTHORIZATION_VOIDED')
  if (authorization.status === 'CAPTURED') throw unprocessable('AUTHORIZATION_ALREADY_CAPTURED')
  if (!isOpen(authorization)) throw unprocessable('AUTHORIZATION_DENIED')
  const remaining = authorization.amountMinor - authorization.capturedMinor
  const amount = amountMinor ?? remaining
  if (amount > remaining) throw unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED')
  orders.store.counters.authorizationsCaptured++
  const capture = newCapture(orders, authorization.order, amount, authorization)
  capture.finalCapture = finalCapture
  authorization.capturedMinor += amount
  authorization.status = finalCapture || authorization.capturedMinor === authorization.amountMinor ? 'CAPTURED' : 'PARTIALLY_CAPTURED'
  authorization.updatedAt = capture.createdAt
  emitCaptureEvent(orders.webhooks, capture, base, 'created')
  return capture
}

/**
 * POST /v2/payments/authorizations/{id}/void: a captured authorization is 422 PREVIOUSLY_CAPTURED, a voided
 * one PREVIOUSLY_VOIDED, a reauthorization CANNOT_BE_VOIDED (payments_payment_v2.json `authorizations.void-422`;
 * https://developer.paypal.com/api/payments/v2/errors/previously_captured).
 */
export function voidAuthorization (orders: Orders, authorization: StoredAuthorization, base: string): StoredAuthorization {
  if (authorization.status === 'VOIDED') throw unprocessable('PREVIOUSLY_VOIDED')
  if (authorization.status === 'CAPTURED') throw unprocessable('PREVIOUSLY_CAPTURED')
  if (!isOpen(authorization) || authorization.parent !== undefined) throw unprocessable('CANNOT_BE_VOIDED')
  orders.store.counters.authorizationsVoided++
  authorization.status = 'VOIDED'
  authorization.updatedAt = orders.runtime.store.now()
  emitAuthorizationEvent(orders.webhooks, authorization, base)
  return authorization
}

/**
 * POST /v2/payments/authorizations/{id}/reauthorize: once, from day 4 (after the honor period) to day 29
 * of the original authorization, for up to 115 % of it but at most 75 USD more; the new authorization
 * has its own 3-day honor period and ends with the original's period
 * (https://developer.paypal.com/docs/api/payments/v2/#authorizations_reauthorize, payments_payment_v2.json
 * `authorizations.reauthorize-422`).
 */
export function reauthorize (orders: Orders, authorization: StoredAuthorization, amountMinor: number | undefined, base: string): StoredAuthorization {
  if (authorization.status === 'VOIDED') throw unprocessable('AUTHORIZATION_VOIDED')
  if (authorization.status === 'CAPTURED') throw unprocessable('AUTHORIZATION_ALREADY_CAPTURED')
  if (authorization.parent !== undefined) throw unprocessable('REAUTHORIZATION_NOT_SUPPORTED')
  const now = orders.runtime.store.now()
  if (!isOpen(authorization) || !canBeReauthorized(authorization) || now < authorization.createdAt + HONOR_PERIOD_MS) {
    throw unprocessable('REAUTHORIZATION_TOO_SOON')
  }
  const amount = amountMinor ?? authorization.amountMinor
  if (amount > Math.min(Math.floor(authorization.amountMinor * 115 / 100), authorization.amountMinor + 7500)) throw unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED')
  orders.store.counters.reauthorizations++
  const renewed: StoredAuthorization = {
    id: newTransactionId(),
    order: authorization.order,
    status: 'CREATED',
    currency: authorization.currency,
    amountMinor: amount,
    capturedMinor: 0,
    createdAt: now,
    updatedAt: now,
    expiresAt: authorization.expiresAt,
    parent: authorization
  }
  authorization.reauthorization = renewed
  authorization.updatedAt = now
  orders.store.authorizations.set(renewed.id, renewed)
  authorization.order.authorizations.push(renewed)
  emitAuthorizationEvent(orders.webhooks, renewed, base)
  return renewed
}
