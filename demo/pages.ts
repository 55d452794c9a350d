/*
 * The shop's own pages (Paywire renders the payment routes' pages itself): the checkout form,
 * and a page for a wrong address or too many attempts. Every value shown is escaped.
 */
import { escapeHtml } from 'paywire'
import { DEFAULT_VALUES, type CheckoutValues } from './checkout-form.ts'

const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF']

/** The gateways in the buyer's words; a gateway not listed shows its name. Another provider adds its line here. */
export const PAYMENT_METHODS: Readonly<Record<string, string>> = {
  offline: 'Pay by bank transfer (offline)',
  paypal: 'PayPal',
  'paypal-checkout': 'PayPal Checkout',
  stripe: 'Card (Stripe)'
}

function layout (title: string, main: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
label{display:block;margin-top:1rem}input,select,button{font-size:1rem;padding:.4rem}
.error{color:#a00;border:1px solid #a00;padding:.5rem}</style></head>
<body><main>
${main}
</main></body></html>`
}

/** The form as the buyer left it: after an error, "Pay" again must charge what they typed. */
export function checkoutPage (gateways: string[], error = '', values: CheckoutValues = DEFAULT_VALUES): string {
  const option = (value: string, label: string, chosen: string) =>
    `<option${value === label ? '' : ` value="${escapeHtml(value)}"`}${value === chosen ? ' selected' : ''}>${escapeHtml(label)}</option>`
  const currencies = CURRENCIES.map((code) => option(code, code, values.currency)).join('')
  const methods = gateways.map((name) => option(name, PAYMENT_METHODS[name] ?? name, values.gateway)).join('')
  return layout('Paywire demo shop', `<h1>Paywire demo shop</h1>
${error === '' ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/checkout">
<label for="amount">Amount</label><input id="amount" name="amount" inputmode="decimal" value="${escapeHtml(values.amount)}" required>
<label for="currency">Currency</label><select id="currency" name="currency">${currencies}</select>
<label for="gateway">Pay with</label><select id="gateway" name="gateway">${methods}</select>
<label for="description">Description</label><input id="description" name="description" value="${escapeHtml(values.description)}">
<p><button type="submit">Pay</button></p>
</form>`)
}

/** A page with a heading, a sentence and the way back to the shop. */
export function messagePage (heading: string, message: string): string {
  return layout(heading, `<h1>${escapeHtml(heading)}</h1>
<p class="message">${escapeHtml(message)}</p>
<p><a class="shop" href="/">Back to the shop</a></p>`)
}
