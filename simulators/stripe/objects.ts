import type Stripe from 'stripe'
import type { Decline, TestCard } from './cards.ts'
import { newId } from './ids.ts'

/*
 * Stripe objects as the API sends them: every field of the object's reference page is present
 * (null where it does not apply), nothing else. Types are the `stripe` package's own, so an API
 * version bump that adds or changes a field fails to compile here.
 *   PaymentIntent https://docs.stripe.com/api/payment_intents/object
 *   Charge        https://docs.stripe.com/api/charges/object
 *   Refund        https://docs.stripe.com/api/refunds/object
 *   Dispute       https://docs.stripe.com/api/disputes/object
 */

export interface IntentInit {
  amount: number
  currency: string
  captureMethod: 'automatic' | 'automatic_async' | 'manual'
  metadata: Record<string, string>
  description: string | null
  paymentMethodTypes: string[]
  created: number
}

export function newPaymentIntent (init: IntentInit): Stripe.PaymentIntent {
  const id = newId('pi')
  return {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: null,
    amount: init.amount,
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: init.captureMethod,
    // https://docs.stripe.com/api/payment_intents/object#payment_intent_object-client_secret: `<id>_secret_<…>`.
    client_secret: `${id}_secret_${newId('x').slice(2)}`,
    confirmation_method: 'automatic',
    created: init.created,
    currency: init.currency,
    customer: null,
    customer_account: null,
    description: init.description,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: init.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: init.paymentMethodTypes,
    payment_record: null,
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: 'requires_payment_method',
    transfer_data: null,
    transfer_group: null
  }
}

/** The charge of one confirmation attempt: authorized (`succeeded`), `pending` while processing, or `failed`. */
export function newCharge (intent: Stripe.PaymentIntent, card: TestCard, paymentMethod: string, outcome: { decline?: Decline, pending?: boolean, email?: string | null }, created: number, captureBefore: number): Stripe.Charge {
  const failed = outcome.decline !== undefined
  const captured = !failed && intent.capture_method !== 'manual' && outcome.pending !== true
  return {
    id: newId('ch'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: captured ? intent.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: null,
    billing_details: { address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: outcome.email ?? null, name: null, phone: null, tax_id: null },
    calculated_statement_descriptor: 'PAYWIRE SIMULATOR',
    captured,
    created,
    currency: intent.currency,
    customer: null,
    description: intent.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: outcome.decline?.code ?? null,
    failure_message: outcome.decline?.message ?? null,
    fraud_details: {},
    livemode: false,
    metadata: { ...intent.metadata },
    on_behalf_of: null,
    // The outcome object (https://docs.stripe.com/api/charges/object#charge_object-outcome): issuer declines
    // carry the decline code as `reason`.
    outcome: failed
      ? { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: 'declined_by_network', reason: outcome.decline?.decline_code ?? null, risk_level: 'normal', seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' }
      : { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' },
    paid: !failed && outcome.pending !== true,
    payment_intent: intent.id,
    payment_method: paymentMethod,
    payment_method_details: {
      type: 'card',
      card: {
        amount_authorized: failed ? null : intent.amount,
        authorization_code: failed ? null : '123456',
        brand: card.brand,
        // https://docs.stripe.com/payments/capture-later: capture_before tells when a manual-capture authorization expires.
        ...(intent.capture_method === 'manual' && !failed ? { capture_before: captureBefore } : {}),
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country: 'US',
        electronic_commerce_indicator: null,
        exp_month: 12,
        exp_year: new Date(created * 1000).getUTCFullYear() + 3,
        funding: card.funding,
        installments: null,
        last4: card.last4,
        mandate: null,
        network: card.brand,
        network_transaction_id: failed ? null : newId('ntx').slice(4, 19),
        regulated_status: 'unregulated',
        three_d_secure: card.requiresAuthentication ? { authentication_flow: 'challenge', electronic_commerce_indicator: '05', exemption_indicator: null, result: 'authenticated', result_reason: null, transaction_id: newId('tds').slice(4), version: '2.2.0' } : null,
        transaction_link_id: null,
        wallet: null
      }
    },
    radar_options: {},
    receipt_email: outcome.email ?? null,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: failed ? 'failed' : outcome.pending === true ? 'pending' : 'succeeded',
    transfer_data: null,
    transfer_group: null
  }
}

export function newRefund (charge: Stripe.Charge, amount: number, reason: Stripe.Refund.Reason | null, metadata: Record<string, string>, status: string, created: number): Stripe.Refund {
  return {
    id: newId('re'),
    object: 'refund',
    amount,
    balance_transaction: null,
    charge: charge.id,
    created,
    currency: charge.currency,
    customer: null,
    customer_account: null,
    metadata,
    payment_intent: typeof charge.payment_intent === 'string' ? charge.payment_intent : null,
    payment_method: charge.payment_method,
    reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status,
    transfer_reversal: null
  }
}

/** Evidence fields, all empty until the merchant responds (https://docs.stripe.com/api/disputes/object#dispute_object-evidence). */
function emptyEvidence (): Stripe.Dispute.Evidence {
  return {
    access_activity_log: null,
    billing_address: null,
    cancellation_policy: null,
    cancellation_policy_disclosure: null,
    cancellation_rebuttal: null,
    customer_communication: null,
    customer_email_address: null,
    customer_name: null,
    customer_purchase_ip: null,
    customer_signature: null,
    duplicate_charge_documentation: null,
    duplicate_charge_explanation: null,
    duplicate_charge_id: null,
    enhanced_evidence: {},
    product_description: null,
    receipt: null,
    refund_policy: null,
    refund_policy_disclosure: null,
    refund_refusal_explanation: null,
    service_date: null,
    service_documentation: null,
    shipping_address: null,
    shipping_carrier: null,
    shipping_date: null,
    shipping_documentation: null,
    shipping_tracking_number: null,
    uncategorized_file: null,
    uncategorized_text: null
  }
}

export function newDispute (charge: Stripe.Charge, amount: number, reason: string, status: Stripe.Dispute.Status, created: number, dueBy: number): Stripe.Dispute {
  return {
    id: newId('dp'),
    object: 'dispute',
    amount,
    balance_transactions: [],
    charge: charge.id,
    created,
    currency: charge.currency,
    enhanced_eligibility_types: [],
    evidence: emptyEvidence(),
    evidence_details: { due_by: dueBy, enhanced_eligibility: {}, has_evidence: false, past_due: false, submission_count: 0, submission_method: 'not_submitted' },
    intended_submission_method: null,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: typeof charge.payment_intent === 'string' ? charge.payment_intent : null,
    reason,
    status
  }
}
