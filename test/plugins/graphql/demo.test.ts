import { once } from 'node:events'
import t from 'tap'
import { buildDemoShop } from '../../../app.ts'
import { CREATE, REFUND, gql, pathOf } from './fixtures.ts'
import { envWith, spawnUncovered } from '../../helpers/child-process.ts'

t.test('the demo shop serves createPayment on /graphql; the README\'s flow works', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  const answer = await gql(app, CREATE, { input: { gateway: 'offline', totalAmount: 1999, currencyCode: 'EUR', number: 'ORDER-42' } })
  const created = answer.data.createPayment
  t.match(created, { __typename: 'PaymentCreated', captureUrl: /^https:\/\/shop\.example\/payment\/capture\//, payment: { status: 'NEW' } })
  const capture = await app.inject({ url: pathOf(created.captureUrl) })
  t.equal(capture.statusCode, 302)
  const done = await app.inject({ url: pathOf(capture.headers.location) })
  t.match(done.json(), { status: 'captured', payment: { number: 'ORDER-42' } })

  t.match((await gql(app, REFUND, { id: created.payment.id })).data.refundPayment, { __typename: 'NotAuthorized' },
    'the demo has no back office: refunds are denied')
  t.equal((await app.inject({ url: '/graphiql' })).statusCode, 404, 'no GraphiQL unless asked')
})

t.test('with the demo\'s PayPal simulator: createPayment, approval, and paymentOutcome reads PayPal\'s status', async (t) => {
  const app = await buildDemoShop()
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const input = { gateway: 'paypal', totalAmount: 750, currencyCode: 'EUR', afterUrl: `${address}/thanks` }
  const created = (await gql(app, CREATE, { input })).data.createPayment
  t.match(created, { __typename: 'PaymentCreated', captureUrl: `${address}/payment/capture/` })
  // Every body is read, so no connection keeps the shop from closing.
  const toPaypal = await fetch(created.captureUrl, { redirect: 'manual' })
  await toPaypal.arrayBuffer()
  t.equal(toPaypal.status, 302)
  const approvalUrl = new URL(toPaypal.headers.get('location') as string)
  const page = await (await fetch(approvalUrl)).text()
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] as string
  const approved = await fetch(new URL('/cgi-bin/webscr', approvalUrl), {
    method: 'POST',
    body: `cmd=_express-checkout&token=${token}&decision=approve`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    redirect: 'manual'
  })
  await approved.arrayBuffer()
  const back = await fetch(approved.headers.get('location') as string, { redirect: 'manual' })
  await back.arrayBuffer()
  const landing = new URL(back.headers.get('location') as string)
  t.equal(`${landing.origin}${landing.pathname}`, `${address}/thanks`)
  const outcome = await gql(app, 'query ($token: String!) { paymentOutcome(token: $token) { ... on PaymentOutcome { status totalAmountDecimal } } }',
    { token: landing.searchParams.get('paywire_token') })
  t.same(outcome.data.paymentOutcome, { status: 'CAPTURED', totalAmountDecimal: '7.50' })
  // The simulator's webhooks to the shop finish before the shop closes.
  await app.paypalSimulator?.simulator.webhooks.waitForIdle()
})

t.test('with the demo\'s Stripe simulator: createPayment for "stripe", the buyer pays on Stripe\'s page, paymentOutcome reads CAPTURED', async (t) => {
  const app = await buildDemoShop({ paypal: false })
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.stripeSimulator?.simulator.webhooks.waitForIdle())
  const input = { gateway: 'stripe', totalAmount: 2500, currencyCode: 'USD', afterUrl: `${address}/thanks` }
  const created = (await gql(app, CREATE, { input })).data.createPayment
  t.match(created, { __typename: 'PaymentCreated', captureUrl: `${address}/payment/capture/`, payment: { gatewayName: 'stripe', status: 'NEW' } })
  const toStripe = await fetch(created.captureUrl, { redirect: 'manual' })
  await toStripe.arrayBuffer()
  const sessionUrl = toStripe.headers.get('location') as string
  t.equal(new URL(sessionUrl).origin, app.stripeSimulator?.simulator.baseUrl(), 'the buyer is sent to Stripe\'s hosted page')
  const paid = await fetch(sessionUrl, { method: 'POST', body: 'action=pay&payment_method=pm_card_visa', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' })
  await paid.arrayBuffer()
  const back = await fetch(paid.headers.get('location') as string, { redirect: 'manual' })
  await back.arrayBuffer()
  const landing = new URL(back.headers.get('location') as string)
  t.equal(`${landing.origin}${landing.pathname}`, `${address}/thanks`)
  const outcome = await gql(app, 'query ($token: String!) { paymentOutcome(token: $token) { ... on PaymentOutcome { status totalAmountDecimal } } }',
    { token: landing.searchParams.get('paywire_token') })
  t.same(outcome.data.paymentOutcome, { status: 'CAPTURED', totalAmountDecimal: '25.00' })
})

t.test('npm start serves /graphql, and no GraphiQL (its page loads scripts from a CDN: blank offline)', async (t) => {
  const env = envWith({ PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'development' }, ['REDIS_URL', 'DATABASE_URL', 'BASE_URL'])
  const child = spawnUncovered('npm', ['start', '--silent'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL') })
  let output = ''
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Demo shop: (http:\/\/[\d.:]+)\//.exec(output)
      if (match !== null) resolve(match[1] as string)
    })
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${output}`)))
  })
  const response = await fetch(`${address}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ gateways { name supports { refund } } }' })
  })
  t.match(await response.json(), { data: { gateways: [{ name: 'offline', supports: { refund: true } }] } })
  t.equal((await fetch(`${address}/graphiql`)).status, 404)
  process.kill(-(child.pid as number), 'SIGTERM')
  await once(child, 'close')
})
