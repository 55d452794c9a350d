import t from 'tap'
import { oneItem, startSimulator } from './helpers.ts'

/*
 * The hosted Checkout page walked over HTTP as a browser without JavaScript would: GET the page,
 * POST its form, follow the redirects.
 */

async function submit (url: string, form: Record<string, string>): Promise<Response> {
  return await fetch(url, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' })
}

t.test('the hosted Checkout page', async (t) => {
  const { app, stripe, origin } = await startSimulator(t)
  const open = async (extra: Record<string, unknown> = {}): Promise<{ id: string, url: string }> => {
    const session = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem(2599), success_url: 'https://shop.example/done?session={CHECKOUT_SESSION_ID}&x=1', cancel_url: 'https://shop.example/cart', ...extra })
    return { id: session.id, url: session.url as string }
  }

  t.test('pay: the page lists the order and every test card; paying redirects to success_url', async (t) => {
    const { id, url } = await open()
    const page = await fetch(url)
    t.equal(page.status, 200)
    t.match(page.headers.get('content-type'), /^text\/html/)
    const html = await page.text()
    t.match(html, /Pay 25\.99 EUR/)
    t.match(html, /Tea × 1/)
    t.match(html, /value="pm_card_chargeDeclinedInsufficientFunds"/)
    t.notMatch(html, /<script/i, 'no scripts')
    const paid = await submit(url, { action: 'pay', payment_method: 'pm_card_visa', email: 'buyer@example.com' })
    t.equal(paid.status, 303)
    t.equal(paid.headers.get('location'), `https://shop.example/done?session=${id}&x=1`)
    const session = await stripe.checkout.sessions.retrieve(id, { expand: ['payment_intent'] })
    t.match(session, { status: 'complete', payment_status: 'paid', customer_details: { email: 'buyer@example.com' }, payment_intent: { status: 'succeeded', amount_received: 2599 } })
    t.match(await (await fetch(url)).text(), /no longer available/, 'a completed session is not payable again')
    const again = await submit(url, { action: 'pay', payment_method: 'pm_card_visa' })
    t.equal(again.status, 303, 'a second submit (a double click) lands where the first went')
    t.equal(again.headers.get('location'), `https://shop.example/done?session=${id}&x=1`)
    t.match(await stripe.paymentIntents.retrieve((session.payment_intent as { id: string }).id), { amount_received: 2599 }, 'and charges nothing more')
    const types = app.simulator.events().map((event) => event.type)
    t.same(types.slice(-4), ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded', 'checkout.session.completed'])
  })

  t.test('declined, then paid on the same PaymentIntent', async (t) => {
    const { id, url } = await open()
    const declined = await submit(url, { action: 'pay', payment_method: 'pm_card_chargeDeclinedInsufficientFunds', email: '' })
    t.equal(declined.status, 402)
    t.match(await declined.text(), /role="alert">Your card has insufficient funds\./)
    const first = await stripe.checkout.sessions.retrieve(id)
    t.equal(first.status, 'open')
    t.match(first.payment_intent, /^pi_/)
    const paid = await submit(url, { action: 'pay', payment_method: 'pm_card_mastercard' })
    t.equal(paid.status, 303)
    const session = await stripe.checkout.sessions.retrieve(id)
    t.equal(session.payment_intent, first.payment_intent, 'the retry reuses the PaymentIntent')
    t.equal(session.customer_details?.email, null)
    const charges = await stripe.charges.list({ payment_intent: session.payment_intent as string })
    t.same(charges.data.map((charge) => charge.status), ['succeeded', 'failed'])
  })

  t.test('3D Secure passed, or failed and retried', async (t) => {
    const { id, url } = await open()
    const challenged = await submit(url, { action: 'pay', payment_method: 'pm_card_threeDSecure2Required' })
    t.equal(challenged.status, 303)
    const challenge = new URL(challenged.headers.get('location') as string, origin).href
    t.match(await (await fetch(challenge)).text(), /Complete authentication/)
    const failed = await submit(challenge, { action: 'fail' })
    t.equal(failed.status, 402)
    t.match(await failed.text(), /failed authentication/)
    t.equal((await stripe.checkout.sessions.retrieve(id)).status, 'open')
    t.equal((await fetch(challenge)).status, 404, 'nothing waits once the challenge failed')
    const again = await submit(url, { action: 'pay', payment_method: 'pm_card_authenticationRequired' })
    const passed = await submit(new URL(again.headers.get('location') as string, origin).href, { action: 'complete' })
    t.equal(passed.status, 303)
    t.equal(passed.headers.get('location'), `https://shop.example/done?session=${id}&x=1`)
    t.equal((await stripe.checkout.sessions.retrieve(id)).payment_status, 'paid')
  })

  t.test('3D Secure passed, then declined by the issuer', async (t) => {
    const { url } = await open()
    const challenged = await submit(url, { action: 'pay', payment_method: 'pm_card_authenticationRequiredChargeDeclinedInsufficientFunds' })
    const declined = await submit(new URL(challenged.headers.get('location') as string, origin).href, { action: 'complete' })
    t.equal(declined.status, 402)
    t.match(await declined.text(), /insufficient funds/)
  })

  t.test('back to cancel_url leaves the session open; unknown sessions are 404', async (t) => {
    const { id, url } = await open()
    const back = await submit(url, { action: 'cancel' })
    t.equal(back.status, 303)
    t.equal(back.headers.get('location'), 'https://shop.example/cart')
    t.equal((await stripe.checkout.sessions.retrieve(id)).status, 'open')
    t.equal((await fetch(`${origin}/c/pay/cs_test_nope`)).status, 404)
    t.equal((await submit(`${origin}/c/pay/cs_test_nope`, { action: 'pay' })).status, 404)
    t.equal((await submit(`${origin}/3ds/pi_nope`, { action: 'complete' })).status, 404)
  })

  t.test('without success_url or cancel_url: a confirmation page, and no back button', async (t) => {
    const session = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem() })
    const html = await (await fetch(session.url as string)).text()
    t.notMatch(html, /value="cancel"/)
    const paid = await submit(session.url as string, { action: 'pay' })
    t.equal(paid.status, 200)
    t.match(await paid.text(), /Payment complete/)
  })

  t.test('a PaymentIntent confirmed through the API: the challenge returns to return_url', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 500, currency: 'eur', payment_method: 'pm_card_authenticationRequired', confirm: true, return_url: 'https://shop.example/back?order=9' })
    const passed = await submit(intent.next_action?.redirect_to_url?.url as string, { action: 'complete' })
    t.equal(passed.status, 303)
    const target = new URL(passed.headers.get('location') as string)
    t.equal(target.origin + target.pathname, 'https://shop.example/back')
    t.equal(target.searchParams.get('order'), '9')
    t.equal(target.searchParams.get('payment_intent'), intent.id)
    t.equal(target.searchParams.get('payment_intent_client_secret'), intent.client_secret)
    t.equal(target.searchParams.get('redirect_status'), 'succeeded')
    const failing = await stripe.paymentIntents.create({ amount: 500, currency: 'eur', payment_method: 'pm_card_authenticationRequired', confirm: true, return_url: 'https://shop.example/back' })
    const failed = await submit(failing.next_action?.redirect_to_url?.url as string, { action: 'fail' })
    t.equal(new URL(failed.headers.get('location') as string).searchParams.get('redirect_status'), 'failed')
    const noReturn = await stripe.paymentIntents.create({ amount: 500, currency: 'eur', payment_method: 'pm_card_authenticationRequired', confirm: true })
    const done = await submit(noReturn.next_action?.redirect_to_url?.url as string, { action: 'complete' })
    t.equal(done.status, 200)
    t.match(await done.text(), /Authentication complete/)
  })

  t.test('an expired session shows so', async (t) => {
    const { url } = await open()
    app.simulator.clock.advance(86_400_000)
    t.match(await (await fetch(url)).text(), /Status: expired/)
  })
})
