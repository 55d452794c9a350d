import type { FastifyInstance, FastifyReply } from 'fastify'
import { TEST_CARDS } from './cards.ts'
import { StripeApiError } from './errors.ts'
import { AUTOMATIC } from './events.ts'
import type { FormObject } from './form.ts'
import { str } from './params.ts'
import { body } from './protocol.ts'
import type { Runtime } from './runtime.ts'
import type { IntentRecord, SessionRecord } from './store.ts'

/*
 * The buyer's side, server-rendered HTML with no scripts: the Checkout page at a session's `url`
 * (https://docs.stripe.com/payments/checkout/how-checkout-works) where the buyer picks a test
 * payment method (https://docs.stripe.com/testing) and pays, is declined and tries again, or goes
 * back to `cancel_url` (the page's back button, https://docs.stripe.com/api/checkout/sessions/create#create_checkout_session-cancel_url).
 * Paying redirects to `success_url` with `{CHECKOUT_SESSION_ID}` replaced
 * (https://docs.stripe.com/payments/checkout/custom-success-page). A card that needs 3D Secure
 * goes through a challenge page first (https://docs.stripe.com/payments/3d-secure), which also
 * serves PaymentIntents confirmed through the API: their `next_action.redirect_to_url.url`; it
 * returns to their `return_url` with `payment_intent`, `payment_intent_client_secret` and
 * `redirect_status` (https://docs.stripe.com/payments/3d-secure/authentication-flow).
 */

function escape (text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function layout (title: string, content: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.3rem 0}.notice{color:#b00020}</style>
</head><body>${content}</body></html>`
}

function amount (value: number, currency: string): string {
  return `${(value / 100).toFixed(2)} ${currency.toUpperCase()}`
}

function sessionPage (record: SessionRecord): string {
  const { session } = record
  if (session.status !== 'open') {
    return layout('Checkout', `<h1>This Checkout Session is no longer available</h1><p>Status: ${escape(session.status as string)}.</p>`)
  }
  const currency = session.currency as string
  const items = record.items.map((item) => `<li>${escape(item.name)} × ${item.quantity}: ${amount(item.unitAmount * item.quantity, currency)}</li>`).join('')
  const cards = Object.entries(TEST_CARDS).map(([name, card], index) =>
    `<label><input type="radio" name="payment_method" value="${name}"${index === 0 ? ' checked' : ''}> ${escape(card.label)} <code>${name}</code></label>`).join('\n')
  const notice = record.notice === undefined ? '' : `<p class="notice" role="alert">${escape(record.notice)}</p>`
  const back = session.cancel_url === null ? '' : '<button type="submit" name="action" value="cancel" formnovalidate>Back</button>'
  return layout('Checkout', `<h1>Pay ${amount(session.amount_total as number, currency)}</h1>
<ul>${items}</ul>${notice}
<form method="post" action="/c/pay/${escape(session.id)}">
<label>Email <input type="email" name="email" value="${escape(session.customer_email ?? '')}"></label>
<fieldset><legend>Test payment method</legend>
${cards}
</fieldset>
<button type="submit" name="action" value="pay">Pay</button> ${back}
</form>`)
}

function challengePage (record: IntentRecord): string {
  const { intent } = record
  return layout('3D Secure', `<h1>3D Secure authentication</h1>
<p>Authenticate the payment of ${amount(intent.amount, intent.currency)}.</p>
<form method="post" action="/3ds/${escape(intent.id)}">
<button type="submit" name="action" value="complete">Complete authentication</button>
<button type="submit" name="action" value="fail">Fail authentication</button>
</form>`)
}

async function html (reply: FastifyReply, page: string, status = 200): Promise<FastifyReply> {
  return await reply.code(status).type('text/html; charset=utf-8').send(page)
}

export function registerHostedPages (app: FastifyInstance, runtime: Runtime): void {
  const { store, checkout, payments } = runtime

  const finished = (record: SessionRecord): string =>
    (record.session.success_url as string).replaceAll('{CHECKOUT_SESSION_ID}', record.session.id)

  async function afterPayment (reply: FastifyReply, record: SessionRecord): Promise<FastifyReply> {
    if (record.session.status === 'complete' && record.session.success_url !== null) return await reply.redirect(finished(record), 303)
    if (record.session.status === 'complete') return await html(reply, layout('Checkout', '<h1>Payment complete</h1>'))
    return await html(reply, sessionPage(record), record.notice === undefined ? 200 : 402)
  }

  app.get<{ Params: { id: string } }>('/c/pay/:id', async (request, reply) => {
    const record = store.sessions.get(request.params.id)
    if (record === undefined) return await html(reply, layout('Checkout', '<h1>Checkout Session not found</h1>'), 404)
    return await html(reply, sessionPage(record))
  })

  app.post<{ Params: { id: string } }>('/c/pay/:id', async (request, reply) => {
    const record = store.sessions.get(request.params.id)
    if (record === undefined) return await html(reply, layout('Checkout', '<h1>Checkout Session not found</h1>'), 404)
    // A second submit of a paid page (a double click: the page has no script to stop it) lands
    // where the first one went, and charges nothing: the session is complete.
    if (record.session.status === 'complete') return await afterPayment(reply, record)
    if (record.session.status !== 'open') return await html(reply, sessionPage(record), 409)
    const form: FormObject = body(request)
    if (str(form, 'action') === 'cancel' && record.session.cancel_url !== null) return await reply.redirect(record.session.cancel_url, 303)
    const email = str(form, 'email')
    const result = checkout.pay(record, str(form, 'payment_method') ?? 'pm_card_visa', email === undefined || email === '' ? null : email)
    if (result === 'challenge') return await reply.redirect(`/3ds/${record.session.payment_intent as string}`, 303)
    return await afterPayment(reply, record)
  })

  app.get<{ Params: { id: string } }>('/3ds/:id', async (request, reply) => {
    const record = store.intents.get(request.params.id)
    if (record?.intent.status !== 'requires_action') return await html(reply, layout('3D Secure', '<h1>No authentication is waiting</h1>'), 404)
    return await html(reply, challengePage(record))
  })

  app.post<{ Params: { id: string } }>('/3ds/:id', async (request, reply) => {
    const record = store.intents.get(request.params.id)
    if (record?.intent.status !== 'requires_action') return await html(reply, layout('3D Secure', '<h1>No authentication is waiting</h1>'), 404)
    const pass = str(body(request), 'action') === 'complete'
    const session = record.sessionId === undefined ? undefined : store.sessions.get(record.sessionId)
    try {
      payments.authenticate(record, pass, AUTOMATIC)
    } catch (error) {
      // Authenticated, then declined by the issuer: the buyer sees why.
      if (session !== undefined) session.notice = (error as StripeApiError).message
    }
    if (session !== undefined) {
      if (!pass) session.notice = record.intent.last_payment_error?.message
      return await afterPayment(reply, session)
    }
    if (record.returnUrl === undefined) return await html(reply, layout('3D Secure', `<h1>Authentication ${pass ? 'complete' : 'failed'}</h1><p>You can close this page.</p>`))
    const target = new URL(record.returnUrl)
    target.searchParams.set('payment_intent', record.intent.id)
    target.searchParams.set('payment_intent_client_secret', record.intent.client_secret as string)
    target.searchParams.set('redirect_status', record.intent.status === 'succeeded' || record.intent.status === 'requires_capture' ? 'succeeded' : 'failed')
    return await reply.redirect(target.href, 303)
  })
}
