import t from 'tap'
import { Payment } from '../../../plugins/core/index.ts'
import { CREATE, buildGraphqlApp, createPayment, gql, pathOf } from './fixtures.ts'

const input = (fields: Record<string, unknown> = {}) => ({ input: { gateway: 'cash', totalAmount: 1999, currencyCode: 'EUR', ...fields } })

const OUTCOME = `query Outcome($token: String!) {
  paymentOutcome(token: $token) {
    __typename
    ... on PaymentOutcome { status number totalAmount totalAmountDecimal currencyCode }
    ... on PaywireError { code message }
    ... on InvalidInput { field }
  }
}`

t.test('createPayment runs the preparation procedure; the buyer follows captureUrl and the done page reads captured', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const answer = await gql(app, CREATE, input({
    number: 'ORDER-42', description: 'Mug', clientEmail: 'buyer@example.com', clientId: 'c-7', details: { cart: 'A1', lines: [1, 2] }
  }))
  t.equal(answer.statusCode, 200)
  const created = answer.data.createPayment
  t.match(created, {
    __typename: 'PaymentCreated',
    replayed: false,
    captureUrl: /^https:\/\/shop\.example\/payment\/capture\/[\w-]{51}$/,
    payment: {
      number: 'ORDER-42',
      status: 'NEW',
      totalAmount: 1999,
      totalAmountDecimal: '19.99',
      currencyCode: 'EUR',
      gatewayName: 'cash',
      localDetails: { cart: 'A1', lines: [1, 2] }
    }
  })
  const stored = await app.paywire.getStorage(Payment).find(created.payment.id) as Payment
  t.match(stored, { description: 'Mug', clientEmail: 'buyer@example.com', clientId: 'c-7', details: { local: { cart: 'A1' } } })

  const capture = await app.inject({ url: pathOf(created.captureUrl) })
  t.equal(capture.statusCode, 302)
  t.match(capture.headers.location, /^https:\/\/shop\.example\/payment\/done\//)
  const done = await app.inject({ url: pathOf(capture.headers.location) })
  t.match(done.json(), { status: 'captured', payment: { number: 'ORDER-42', totalAmount: 1999 } })
  t.notOk('details' in done.json().payment, 'the shop\'s details never reach the done page')
})

t.test('shop details cannot change what the gateway sees: they stay under details.local', async (t) => {
  const { app } = await buildGraphqlApp({ paywire: { pages: { doneFields: ['details'] } } })
  t.teardown(() => app.close())
  // The offline gateway reads "status" and "paid" from its details: a forged value must not count.
  const { captureUrl } = await createPayment(app, { details: { status: 'captured', paid: false } })
  const capture = await app.inject({ url: pathOf(captureUrl) })
  const done = await app.inject({ url: pathOf(capture.headers.location) })
  t.equal(done.json().status, 'captured', 'paid by the capture, not by the forged fields')
  t.same(done.json().payment.details.paid, true)
  t.notOk('local' in done.json().payment.details, 'even opted in, the shop\'s own details stay out')
})

t.test('amounts are integer minor units up to 2^53 - 1, above GraphQL Int\'s 2^31 - 1', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const big = await gql(app, CREATE, input({ totalAmount: 3_000_000_000 }))
  t.match(big.data.createPayment.payment, { totalAmount: 3_000_000_000, totalAmountDecimal: '30000000.00' })
  const largest = await gql(app, CREATE, input({ totalAmount: Number.MAX_SAFE_INTEGER, currencyCode: 'JPY' }))
  t.match(largest.data.createPayment.payment, { totalAmount: Number.MAX_SAFE_INTEGER, totalAmountDecimal: String(Number.MAX_SAFE_INTEGER) })
  const literal = await gql(app, `mutation { createPayment(input: { gateway: "cash", totalAmount: 4000000000, currencyCode: "BHD" }) {
    ... on PaymentCreated { payment { totalAmount totalAmountDecimal } } } }`)
  t.same(literal.data.createPayment.payment, { totalAmount: 4_000_000_000, totalAmountDecimal: '4000000.000' })
})

t.test('currencies are ISO 4217, alphabetic or numeric, stored alphabetic', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  for (const code of ['eur', '978']) {
    const answer = await gql(app, CREATE, input({ currencyCode: code }))
    t.equal(answer.data.createPayment.payment.currencyCode, 'EUR', code)
  }
})

t.test('every invalid input is a typed error in the result union, and stores nothing', async (t) => {
  const { app, storage } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ gateway: 'bitcoin' }, { __typename: 'UnknownGateway', code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY', gateway: 'bitcoin' }],
    [{ gateway: 'no spaces allowed' }, { __typename: 'UnknownGateway', gateway: 'no spaces allowed' }],
    [{ totalAmount: -1 }, { __typename: 'InvalidAmount', code: 'PAYWIRE_ERR_INVALID_AMOUNT', field: 'input.totalAmount' }],
    [{ totalAmount: 12.5 }, { __typename: 'InvalidAmount', field: 'input.totalAmount' }],
    [{ totalAmount: 2 ** 53 }, { __typename: 'InvalidAmount', field: 'input.totalAmount' }],
    [{ currencyCode: 'XQQ' }, { __typename: 'InvalidCurrency', code: 'PAYWIRE_ERR_UNKNOWN_CURRENCY', currencyCode: 'XQQ' }],
    [{ currencyCode: 'EURO' }, { __typename: 'InvalidCurrency', currencyCode: 'EURO' }],
    [{ afterUrl: '/thanks' }, { __typename: 'InvalidAfterUrl', code: 'PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL', reason: 'it is not an absolute URL' }],
    [{ afterUrl: 'javascript:alert(1)' }, { __typename: 'InvalidAfterUrl', reason: 'only http and https URLs are allowed' }],
    [{ afterUrl: 'https://user:pw@shop.example/thanks' }, { __typename: 'InvalidAfterUrl', reason: 'it must not carry credentials' }],
    [{ afterUrl: 'https://evil.example/thanks' }, { __typename: 'InvalidAfterUrl', reason: 'origin https://evil.example is not allowed' }],
    [{ afterUrl: `https://shop.example/${'a'.repeat(2048)}` }, { __typename: 'InvalidAfterUrl', reason: /2048/ }],
    [{ number: ' ORDER-1' }, { __typename: 'InvalidInput', code: 'PAYWIRE_ERR_VALIDATION', field: 'input.number' }],
    [{ clientEmail: 'not an email' }, { __typename: 'InvalidInput', field: 'input.clientEmail' }],
    [{ description: 'line\u0000break' }, { __typename: 'InvalidInput', field: 'input.description' }],
    [{ details: { blob: 'x'.repeat(20_000) } }, { __typename: 'InvalidInput', field: 'input.details', message: /16384 bytes/ }]
  ]
  for (const [fields, expected] of cases) {
    const answer = await gql(app, CREATE, input(fields))
    t.equal(answer.errors, undefined, JSON.stringify(fields).slice(0, 60))
    t.match(answer.data.createPayment, { message: String, ...expected }, JSON.stringify(fields).slice(0, 60))
  }
  t.equal(storage.calls.update, 0, 'no payment was stored')
})

t.test('explicit nulls are "not given"; wrong wire types are GraphQL request errors', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const nulls = await gql(app, CREATE, input({ number: null, description: null, details: null, afterUrl: null }))
  t.match(nulls.data.createPayment, { __typename: 'PaymentCreated', payment: { number: /^PW-[0-9A-Z]+-[0-9A-F]{8}$/, localDetails: {} } })
  const text = await gql(app, CREATE, input({ totalAmount: '1999' }))
  t.match(text.errors?.[0].message, /MinorUnits must be a JSON number/)
  const list = await gql(app, CREATE, input({ details: [1] }))
  t.match(list.errors?.[0].message, /JSONObject must be a JSON object/)
  const literal = await gql(app, 'mutation { createPayment(input: { gateway: "cash", totalAmount: "1", currencyCode: "EUR" }) { __typename } }')
  t.match(literal.errors?.[0].message, /MinorUnits must be a number literal/)
  const objectLiteral = await gql(app, 'mutation ($n: String) { createPayment(input: { gateway: "cash", totalAmount: 1, currencyCode: "EUR", details: { note: $n, tags: ["a"] } }) { ... on PaymentCreated { payment { localDetails } } } }', { n: 'hi' })
  t.same(objectLiteral.data.createPayment.payment.localDetails, { note: 'hi', tags: ['a'] })
  const badObjectLiteral = await gql(app, 'mutation { createPayment(input: { gateway: "cash", totalAmount: 1, currencyCode: "EUR", details: "x" }) { __typename } }')
  t.match(badObjectLiteral.errors?.[0].message, /JSONObject must be an object literal/)
})

t.test('afterUrl replaces the done page: the buyer lands there with the after token, which paymentOutcome reads', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const { captureUrl } = await createPayment(app, { number: 'ORDER-9', afterUrl: 'https://shop.example/thanks?order=9#top' })
  const capture = await app.inject({ url: pathOf(captureUrl) })
  t.equal(capture.statusCode, 302)
  const landing = new URL(String(capture.headers.location))
  t.equal(`${landing.origin}${landing.pathname}`, 'https://shop.example/thanks')
  t.equal(landing.searchParams.get('order'), '9', 'the page\'s own query is kept')
  const token = landing.searchParams.get('paywire_token') as string
  t.match(token, /^[\w-]{51}$/)

  const outcome = await gql(app, OUTCOME, { token })
  t.same(outcome.data.paymentOutcome, {
    __typename: 'PaymentOutcome', status: 'CAPTURED', number: 'ORDER-9', totalAmount: 1999, totalAmountDecimal: '19.99', currencyCode: 'EUR'
  })
  const captureToken = pathOf(captureUrl).split('/').at(-1) as string
  const cases: Array<[string, Record<string, unknown>]> = [
    [captureToken, { __typename: 'TokenNotFound', code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND' }],
    ['A'.repeat(43), { __typename: 'TokenNotFound' }],
    ['not a token!', { __typename: 'InvalidInput', field: 'token' }]
  ]
  for (const [candidate, expected] of cases) {
    t.match((await gql(app, OUTCOME, { token: candidate })).data.paymentOutcome, expected, candidate)
  }
})

t.test('an after token whose payment is gone is not found', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const { id, captureUrl } = await createPayment(app, { afterUrl: 'https://shop.example/thanks' })
  const capture = await app.inject({ url: pathOf(captureUrl) })
  const token = new URL(String(capture.headers.location)).searchParams.get('paywire_token') as string
  const storage = app.paywire.getStorage(Payment)
  await storage.delete(await storage.find(id) as Payment)
  t.match((await gql(app, OUTCOME, { token })).data.paymentOutcome, { __typename: 'TokenNotFound' })
})

t.test('afterUrlOrigins lists the other origins buyers may land on; "*" allows any', async (t) => {
  const listed = await buildGraphqlApp({ graphql: { afterUrlOrigins: ['https://app.shop.example/'] } })
  t.teardown(() => listed.app.close())
  t.match((await gql(listed.app, CREATE, input({ afterUrl: 'https://app.shop.example/done' }))).data.createPayment, { __typename: 'PaymentCreated' })
  t.match((await gql(listed.app, CREATE, input({ afterUrl: 'https://shop.example/done' }))).data.createPayment,
    { __typename: 'InvalidAfterUrl' }, 'a list replaces the default')

  const any = await buildGraphqlApp({ graphql: { afterUrlOrigins: '*' } })
  t.teardown(() => any.app.close())
  t.match((await gql(any.app, CREATE, input({ afterUrl: 'http://localhost:5173/done' }))).data.createPayment, { __typename: 'PaymentCreated' })
})
