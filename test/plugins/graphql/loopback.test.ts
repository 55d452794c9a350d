/*
 * A real GraphQL client (fetch over HTTP) against a listening shop, the way a frontend
 * and a back office use it. No base URL: token URLs use the address the shop listens on.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paywire } from '../../../plugins/core/index.ts'
import { paywireGraphql } from '../../../plugins/graphql/index.ts'
import { CREATE, REFUND } from './fixtures.ts'

const ADMIN_TOKEN = randomUUID()

async function listeningShop (): Promise<{ app: FastifyInstance, address: string }> {
  const app = Fastify()
  await app.register(paywire, { gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.register(paywireGraphql, {
    mercurius: true,
    authorize: (context) => context.reply?.request.headers.authorization === `Bearer ${ADMIN_TOKEN}`
  })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, address }
}

/** A minimal GraphQL client: POST JSON, read JSON. */
function client (address: string, headers: Record<string, string> = {}) {
  return async (query: string, variables: Record<string, unknown> = {}, extra: Record<string, string> = {}) => {
    const response = await fetch(`${address}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers, ...extra },
      body: JSON.stringify({ query, variables })
    })
    return { status: response.status, body: await response.json() as { data: any, errors?: unknown[] } }
  }
}

t.test('a frontend creates a payment, the buyer follows captureUrl, the done page says captured; the back office refunds', async (t) => {
  const { app, address } = await listeningShop()
  t.teardown(() => app.close())
  const frontend = client(address)
  const { status, body } = await frontend(CREATE, { input: { gateway: 'cash', totalAmount: 4500, currencyCode: 'CHF', number: 'WEB-1' } },
    { 'idempotency-key': randomUUID() })
  t.equal(status, 200)
  const created = body.data.createPayment
  t.match(created, { __typename: 'PaymentCreated', captureUrl: `${address}/payment/capture/`, payment: { status: 'NEW', totalAmountDecimal: '45.00' } })

  const capture = await fetch(created.captureUrl, { redirect: 'manual' })
  await capture.arrayBuffer()
  t.equal(capture.status, 302)
  const doneUrl = capture.headers.get('location') as string
  t.match(doneUrl, `${address}/payment/done/`)
  const done = await fetch(doneUrl, { headers: { accept: 'application/json' } })
  t.match(await done.json(), { status: 'captured', payment: { number: 'WEB-1', totalAmount: 4500, currencyCode: 'CHF' } })

  t.match((await frontend(REFUND, { id: created.payment.id })).body.data.refundPayment, { __typename: 'NotAuthorized' })
  const backOffice = client(address, { authorization: `Bearer ${ADMIN_TOKEN}` })
  t.match((await backOffice(REFUND, { id: created.payment.id, amount: 1000 })).body.data.refundPayment,
    { __typename: 'PaymentRefunded', status: 'REFUNDED', payment: { details: { refunded_amount: 1000 } } })
})

t.test('a frontend retrying over the network never makes two payments', async (t) => {
  const { app, address } = await listeningShop()
  t.teardown(() => app.close())
  const frontend = client(address, { 'idempotency-key': randomUUID() })
  const variables = { input: { gateway: 'cash', totalAmount: 990, currencyCode: 'EUR', afterUrl: `${address}/thanks` } }
  const answers = await Promise.all(Array.from({ length: 8 }, () => frontend(CREATE, variables)))
  const urls = new Set(answers.map((answer) => answer.body.data.createPayment.captureUrl))
  t.equal(urls.size, 1)
  const payments = await client(address, { authorization: `Bearer ${ADMIN_TOKEN}` })('{ payments { ... on PaymentConnection { nodes { id } } } }')
  t.equal(payments.body.data.payments.nodes.length, 1)

  const capture = await fetch([...urls][0] as string, { redirect: 'manual' })
  await capture.arrayBuffer()
  const landing = new URL(capture.headers.get('location') as string)
  t.equal(`${landing.origin}${landing.pathname}`, `${address}/thanks`, 'the buyer lands on afterUrl')
  const outcome = await frontend('query ($token: String!) { paymentOutcome(token: $token) { ... on PaymentOutcome { status totalAmountDecimal } } }',
    { token: landing.searchParams.get('paywire_token') })
  t.same(outcome.body.data.paymentOutcome, { status: 'CAPTURED', totalAmountDecimal: '9.90' })
})
