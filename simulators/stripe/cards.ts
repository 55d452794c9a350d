/*
 * Test payment methods, by the names and outcomes of Stripe's testing page
 * (https://docs.stripe.com/testing: "PaymentMethods" tab of the test cards, the "Declined payments"
 * table and the 3D Secure "regulatory" cards), with the decline codes and messages of
 * https://docs.stripe.com/declines/codes.
 */

export interface Decline {
  /** `card_declined`, or the specific code Stripe uses instead (`expired_card`, `incorrect_cvc`, `processing_error`). */
  code: string
  decline_code: string
  message: string
}

export interface TestCard {
  brand: 'visa' | 'mastercard' | 'amex'
  last4: string
  funding: 'credit' | 'debit'
  /** 3D Secure is required before the issuer answers. */
  requiresAuthentication: boolean
  /** The issuer's answer (after authentication when it is required). */
  decline?: Decline
  /** Shown on the hosted checkout page. */
  label: string
}

const GENERIC: Decline = { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' }
const INSUFFICIENT: Decline = { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' }

export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  pm_card_visa: { brand: 'visa', last4: '4242', funding: 'credit', requiresAuthentication: false, label: 'Visa 4242 — succeeds' },
  pm_card_visa_debit: { brand: 'visa', last4: '5556', funding: 'debit', requiresAuthentication: false, label: 'Visa debit 5556 — succeeds' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', funding: 'credit', requiresAuthentication: false, label: 'Mastercard 4444 — succeeds' },
  pm_card_amex: { brand: 'amex', last4: '8431', funding: 'credit', requiresAuthentication: false, label: 'American Express 8431 — succeeds' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', funding: 'credit', requiresAuthentication: false, decline: GENERIC, label: 'Visa 0002 — generic decline' },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995', funding: 'credit', requiresAuthentication: false, decline: INSUFFICIENT, label: 'Visa 9995 — insufficient funds' },
  pm_card_chargeDeclinedLostCard: { brand: 'visa', last4: '9987', funding: 'credit', requiresAuthentication: false, decline: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' }, label: 'Visa 9987 — lost card' },
  pm_card_chargeDeclinedStolenCard: { brand: 'visa', last4: '9979', funding: 'credit', requiresAuthentication: false, decline: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' }, label: 'Visa 9979 — stolen card' },
  pm_card_chargeDeclinedExpiredCard: { brand: 'visa', last4: '0069', funding: 'credit', requiresAuthentication: false, decline: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' }, label: 'Visa 0069 — expired card' },
  pm_card_chargeDeclinedIncorrectCvc: { brand: 'visa', last4: '0127', funding: 'credit', requiresAuthentication: false, decline: { code: 'incorrect_cvc', decline_code: 'incorrect_cvc', message: 'Your card\'s security code is incorrect.' }, label: 'Visa 0127 — incorrect CVC' },
  pm_card_chargeDeclinedProcessingError: { brand: 'visa', last4: '0119', funding: 'credit', requiresAuthentication: false, decline: { code: 'processing_error', decline_code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' }, label: 'Visa 0119 — processing error' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', funding: 'credit', requiresAuthentication: true, label: 'Visa 3184 — 3D Secure required' },
  pm_card_threeDSecure2Required: { brand: 'visa', last4: '3220', funding: 'credit', requiresAuthentication: true, label: 'Visa 3220 — 3D Secure 2 required' },
  pm_card_authenticationRequiredChargeDeclinedInsufficientFunds: { brand: 'visa', last4: '3178', funding: 'credit', requiresAuthentication: true, decline: INSUFFICIENT, label: 'Visa 3178 — 3D Secure, then insufficient funds' }
}

export function testCard (name: string): TestCard | undefined {
  return Object.hasOwn(TEST_CARDS, name) ? TEST_CARDS[name] : undefined
}
