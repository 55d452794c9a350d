import { ArrayObject, Capture, Refund, assertMinorUnits, errorCodes } from 'paywire/engine'
import { AcmeField, AcmeStatus, type AcmeCharge } from './acme-protocol.ts'

/** What the actions need from the API; both versions of AcmeApi have it. */
export interface AcmeOperations {
  createCharge (amount: number, currency: string): Promise<AcmeCharge>
  refundCharge (chargeId: string, amount: number): Promise<void>
}

export function supportsCapture (request: unknown): request is Capture {
  return request instanceof Capture && request.model instanceof ArrayObject
}

export function supportsRefund (request: unknown): request is Refund {
  return request instanceof Refund && request.model instanceof ArrayObject
}

/** Charges once: a capture replayed on a charged payment changes nothing. */
export async function capture (api: AcmeOperations, request: Capture): Promise<void> {
  const details = request.model as ArrayObject
  if (details.has(AcmeField.CHARGE_ID)) return
  const charge = await api.createCharge(details.get<number>('amount'), details.get<string>('currency'))
  details.set(AcmeField.CHARGE_ID, charge.id).set(AcmeField.STATUS, AcmeStatus.CAPTURED)
}

/** Refunds what remains (or `amount` of it) of a captured payment. */
export async function refund (api: AcmeOperations, request: Refund): Promise<void> {
  const details = request.model as ArrayObject
  const status = details.get<string | undefined>(AcmeField.STATUS)
  if (status !== AcmeStatus.CAPTURED && status !== AcmeStatus.REFUNDED) return
  const total = details.get<number>('amount', 0)
  const refunded = details.get<number>(AcmeField.REFUNDED_AMOUNT, 0)
  const amount = request.amount ?? total - refunded
  assertMinorUnits(amount)
  if (refunded + amount > total) throw new errorCodes.PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED(amount, total - refunded)
  await api.refundCharge(details.get<string>(AcmeField.CHARGE_ID), amount)
  details.set(AcmeField.REFUNDED_AMOUNT, refunded + amount).set(AcmeField.STATUS, AcmeStatus.REFUNDED)
}
