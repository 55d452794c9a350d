/*
 * The operator console over Fastify's inject: registration, who may use it, the list's
 * filters and pages, and every way an operation's forms can go wrong (bad amounts, more than
 * refundable, a status that does not allow it, forged or replayed forms), each answered with
 * a page that says what happened — never a stack trace. The browser walk is console-browser.test.ts.
 */
import Fastify from 'fastify'
import t from 'tap'
import { MemoryStorage, Payment, errorCodes, paywire } from '../../../plugins/core/index.ts'
import { CONSOLE_CSP, paywireConsole } from '../../../plugins/console/index.ts'
import { ADMIN, PREFIX, buildConsoleApp, confirmAndPost, cookieFrom, field, payment, roleAuthorize, text } from './fixtures.ts'

const app = await buildConsoleApp({
  pageSize: 2,
  // "boom" stands for an application whose authorize fails (its database is down).
  authorize: (request, operation) => {
    if (request.headers['x-operator'] === 'boom') throw new Error('db password=hunter2')
    return roleAuthorize(request, operation)
  }
})
t.teardown(() => app.close())

// Made in order: newest first in the list is the reverse.
const captured = await payment(app, { amount: 1999, number: 'A-1' })
const pending = await payment(app, { amount: 500, paid: false, number: 'A-2' })
const yen = await payment(app, { amount: 1200, currency: 'JPY', gateway: 'till', number: 'A-3' })

const get = async (url: string, headers: Record<string, string> = ADMIN) => await app.inject({ method: 'GET', url: `${PREFIX}${url}`, headers })

t.test('registration: refused without authorize, with a misspelt option, with a wrong type', async (t) => {
  for (const [options, code, pattern] of [
    [{}, 'PAYWIRE_ERR_CONSOLE_AUTHORIZE_REQUIRED', /needs an authorize/],
    [{ authorise: () => true }, 'PAYWIRE_ERR_INVALID_OPTION', /did you mean authorize/],
    [{ authorize: true }, 'PAYWIRE_ERR_INVALID_OPTION', /must be a function/],
    [{ authorize: () => true, prefix: 'console' }, 'PAYWIRE_ERR_INVALID_OPTION', /prefix/],
    [{ authorize: () => true, csrfSecret: 'short' }, 'PAYWIRE_ERR_INVALID_OPTION', /csrfSecret/],
    [{ authorize: () => true, locale: 'not a locale!' }, 'PAYWIRE_ERR_INVALID_OPTION', /locale/],
    [{ authorize: () => true, idempotencyStore: {} }, 'PAYWIRE_ERR_INVALID_OPTION', /IdempotencyStore/]
  ] as const) {
    const bare = Fastify()
    await bare.register(paywire, { baseUrl: 'http://shop.test' })
    bare.register(paywireConsole, options as never)
    await t.rejects(async () => await bare.ready(), { code, message: pattern }, JSON.stringify(Object.keys(options)))
    await bare.close()
  }
})

t.test('authorize says no: a 403 page naming what was refused, with the console\'s headers', async (t) => {
  const anonymous = await get('/', {})
  t.equal(anonymous.statusCode, 403)
  t.match(anonymous.headers['content-type'], /^text\/html/)
  t.equal(anonymous.headers['content-security-policy'], CONSOLE_CSP)
  t.equal(anonymous.headers['cache-control'], 'no-store')
  t.match(text(anonymous.body), /Not allowed You are not allowed to view payments .* Code: PAYWIRE_ERR_CONSOLE_NOT_AUTHORIZED/)
  t.notMatch(anonymous.body, captured.number, 'no payment shown')
  // A viewer may look, not refund: the confirmation is refused already.
  t.equal((await get(`/payments/${captured.id as string}`, { 'x-operator': 'viewer' })).statusCode, 200)
  const refund = await get(`/payments/${captured.id as string}/refund?amount=1.00`, { 'x-operator': 'viewer' })
  t.equal(refund.statusCode, 403)
  t.match(text(refund.body), /not allowed to refund payments/)
  // An authorize that throws is the application's bug: a 500 page without its message.
  const answer = await get('/', { 'x-operator': 'boom' })
  t.equal(answer.statusCode, 500)
  t.match(text(answer.body), /Something went wrong An unexpected error occurred; it has been logged/)
  t.notMatch(answer.body, /hunter2|at .*\.ts/)
})

t.test('the list: newest first, two per page, a Next link to the rest', async (t) => {
  const first = await get('/')
  t.equal(first.statusCode, 200)
  const body = text(first.body)
  t.ok(body.indexOf('A-3') < body.indexOf('A-2') && !body.includes('A-1'), 'A-3 then A-2')
  t.match(body, /¥1,200/)
  t.match(first.body, /<th scope="col">Status<\/th>/, 'table headers')
  const next = /rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&')
  t.ok(next)
  const second = await app.inject({ method: 'GET', url: next as string, headers: ADMIN })
  t.match(text(second.body), /A-1/)
  t.notMatch(second.body, /rel="next"/, 'the last page')
})

t.test('filters: status (several), gateway, currency and amounts, provider id, dates', async (t) => {
  const only = async (query: string) => text((await get(`/?${query}`)).body)
  t.match(await only('status=pending'), /A-2/)
  t.notMatch(await only('status=pending'), /A-1|A-3/)
  const two = await only('status=pending&status=captured&gateway=cash')
  t.match(two, /A-2/)
  t.notMatch(two, /A-3/)
  t.match(await only('currency=jpy&min=1000&max=1500'), /A-3/)
  t.notMatch(await only('currency=EUR&min=10&max=25'), /A-2|A-3/)
  t.match(await only('provider=nothing-has-this'), /No payment matches these filters/)
  const today = new Date().toISOString().slice(0, 10)
  t.match(await only(`from=${today}&to=${today}&status=captured&gateway=till`), /A-3/)
  t.match(await only('from=2001-01-01&to=2001-01-02'), /No payment matches/)
  t.match(await only('attention=yes&gateway=cash'), /No payment matches/, 'nothing is due yet')
  // A cursor that is not one the list made: a 400 page saying so.
  const forged = await get('/?after=not-a-cursor')
  t.equal(forged.statusCode, 400)
  t.match(text(forged.body), /That did not work .*PAYWIRE_ERR_VALIDATION/)
  // The form keeps what was chosen.
  const form = (await get('/?status=pending&gateway=till&currency=EUR')).body
  t.match(form, /value="pending" checked/)
  t.match(form, /<option selected>till<\/option>/)
})

t.test('filters a person got wrong: 400, the message, the form again', async (t) => {
  for (const [query, message] of [
    ['min=abc&currency=EUR', /"abc" is not an amount in EUR: write it like 12.50/],
    ['min=5', /Choose a currency to filter by amount from/],
    ['currency=EUR&min=9&max=1', /"Amount from" is more than "Amount to"/],
    ['currency=XXY', /"XXY" is not an ISO 4217 currency code/],
    ['status=lost', /"lost" is not a status/],
    ['gateway=nope', /There is no gateway "nope"/],
    ['from=yesterday', /Created from must be a date like/],
    ['from=2026-02-02&to=2026-01-01', /"Created from" is after "Created to"/]
  ] as const) {
    const answer = await get(`/?${query}`)
    t.equal(answer.statusCode, 400, query)
    t.match(text(answer.body), message, query)
    t.match(answer.body, /<form class="filters"/)
  }
})

t.test('a storage that cannot search: 501, said in words; a storage that is down: 503', async (t) => {
  const plain = new MemoryStorage(Payment) as unknown as Record<string, unknown>
  plain.searchPayments = undefined
  plain.find = async (id: string) => {
    if (id === 'down') throw new errorCodes.PAYWIRE_ERR_STORAGE_UNAVAILABLE('memory')
    return null
  }
  const other = await buildConsoleApp({}, { storages: [[Payment, plain as never]] })
  t.teardown(() => other.close())
  const answer = await other.inject({ method: 'GET', url: `${PREFIX}/`, headers: ADMIN })
  t.equal(answer.statusCode, 501)
  t.match(text(answer.body), /does not implement PaymentSearch .* PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED/)
  const down = await other.inject({ method: 'GET', url: `${PREFIX}/payments/down`, headers: ADMIN })
  t.equal(down.statusCode, 503)
  t.match(text(down.body), /The payment storage did not answer. Try again in a moment. Code: PAYWIRE_ERR_STORAGE_UNAVAILABLE/)
})

t.test('a payment page, and the 404s', async (t) => {
  const page = await get(`/payments/${captured.id as string}`)
  t.equal(page.statusCode, 200)
  t.match(text(page.body), /Payment A-1 .*Status Captured Amount €19.99 Captured €19.99 Refunded €0.00/)
  t.match(page.headers['set-cookie'], /^paywire_console_csrf=[\w-]{43}; Path=\/paywire\/console; HttpOnly; SameSite=Strict$/)
  t.match(page.body, /<label for="refund-amount">/)
  for (const url of ['/payments/no-such-id', '/payments/%3Cscript%3E', '/payments/x/refund?amount=1']) {
    const missing = await get(url)
    t.equal(missing.statusCode, 404, url)
    t.match(text(missing.body), /No payment has this id/)
    t.notMatch(missing.body, /<script/)
  }
  const nowhere = await get('/nowhere')
  t.equal(nowhere.statusCode, 404)
  t.match(text(nowhere.body), /no page at this address/)
  t.equal((await get(`/payments/${captured.id as string}/explode`)).statusCode, 404)
})

t.test('refund amounts a person got wrong: the payment page again with the message, 400', async (t) => {
  for (const [amount, message] of [
    ['12,5', /"12,5" is not an amount in EUR: write it like 12.50, with at most 2 decimals/],
    ['1.234', /is not an amount in EUR/],
    ['0', /A refund must be more than zero/],
    ['20.00', /Only €19.99 can still be refunded; €20.00 is more/],
    ['', /"" is not an amount/]
  ] as const) {
    const answer = await get(`/payments/${captured.id as string}/refund?amount=${encodeURIComponent(amount)}`)
    t.equal(answer.statusCode, 400, amount)
    t.match(text(answer.body), message, amount)
    t.match(answer.body, `value="${amount}"`, 'what was typed stays in the field')
    t.match(answer.body, /role="alert"/)
  }
  const yenPage = await get(`/payments/${yen.id as string}/refund?amount=1.5`)
  t.match(text(yenPage.body), /write it like 500, with at most 0 decimals/)
})

t.test('an operation the status rules out: 409 at the confirmation, nothing run', async (t) => {
  const answer = await get(`/payments/${captured.id as string}/cancel`)
  t.equal(answer.statusCode, 409)
  t.match(text(answer.body), /This payment is captured: cancel it is not possible now/)
  // Offline has no Sync: not offered, not runnable.
  t.notMatch((await get(`/payments/${captured.id as string}`)).body, /\/sync"/)
  t.equal((await get(`/payments/${captured.id as string}/sync`)).statusCode, 409)
})

t.test('refund: confirm, run once, a second post of the same form replays, another amount with its key is refused', async (t) => {
  const path = `${PREFIX}/payments/${captured.id as string}/refund?amount=5.00`
  const { confirm, answer, fields, cookie } = await confirmAndPost(app, path)
  t.match(text(confirm.body), /Refund €5.00 of payment A-1 to the buyer\?/)
  t.equal(field(confirm.body, 'amount'), '500')
  t.equal(answer.statusCode, 200)
  t.match(text(answer.body), /Refunded €5.00. The payment is now refunded. .*Refunded €5.00 .*At most €14.99/)
  const post = async (payload: URLSearchParams) => await app.inject({
    method: 'POST', url: path.replace(/\?.*$/, ''), headers: { ...ADMIN, cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: payload.toString()
  })
  const again = await post(fields)
  t.match(text(again.body), /already been sent: it ran once, nothing was run again.*Refunded €5.00/)
  fields.set('amount', '600')
  const reused = await post(fields)
  t.equal(reused.statusCode, 422)
  t.match(text(reused.body), /already used for another refund\. .* PAYWIRE_ERR_CONSOLE_FORM_REUSED/)
  // More than remains, posted directly (the confirmation checked it; the gateway checks again).
  fields.set('amount', '1500')
  fields.set('key', 'a-new-key-0000000000000001')
  const exceeded = await post(fields)
  t.equal(exceeded.statusCode, 400)
  t.match(text(exceeded.body), /Cannot refund 1500 minor units: only 1499 remain refundable. Code: PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED/)
  fields.set('amount', 'lots')
  fields.set('key', 'a-new-key-0000000000000002')
  const bad = await post(fields)
  t.equal(bad.statusCode, 400)
  t.match(text(bad.body), /not a whole number of minor units/)
})

t.test('forged forms: no token, another browser\'s token, a cross-site post, a bad key — 403, nothing run', async (t) => {
  const path = `${PREFIX}/payments/${pending.id as string}/cancel`
  const cases: Array<[string, (fields: URLSearchParams) => void, Record<string, string>]> = [
    ['no token', (fields) => fields.delete('csrf'), {}],
    ['another token', (fields) => fields.set('csrf', 'x'.repeat(43)), {}],
    ['cross-site', () => {}, { 'sec-fetch-site': 'cross-site' }],
    ['another origin', () => {}, { origin: 'https://evil.example' }],
    ['bad key', (fields) => fields.set('key', 'short'), {}]
  ]
  for (const [name, change, headers] of cases) {
    const { answer } = await confirmAndPost(app, path, change, headers)
    t.equal(answer.statusCode, 403, name)
    t.match(text(answer.body), /not sent from the console page it belongs to .* PAYWIRE_ERR_CONSOLE_FORM_EXPIRED/, name)
  }
  const noCookie = await app.inject({
    method: 'POST', url: path, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'csrf=abc&key=0000000000000000'
  })
  t.equal(noCookie.statusCode, 403)
  t.match(text((await get(`/payments/${pending.id as string}`)).body), /Status Pending/, 'still pending')
})

t.test('cancel: a pending payment is canceled; posted again after a new confirmation, the status rules it out', async (t) => {
  const path = `${PREFIX}/payments/${pending.id as string}/cancel`
  const { answer, cookie } = await confirmAndPost(app, path)
  t.match(text(answer.body), /Canceled. The payment is now canceled./)
  // A confirmation page opened before the cancel, posted after it: the run refuses, the page says why.
  const late = await app.inject({
    method: 'POST',
    url: path,
    headers: { ...ADMIN, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf: field((await get(`/payments/${captured.id as string}/refund?amount=1`, { ...ADMIN, cookie })).body, 'csrf'), key: 'another-key-000000000000' }).toString()
  })
  t.equal(late.statusCode, 409)
  t.match(text(late.body), /This payment is canceled: cancel it is not possible now. Nothing was done. Code: PAYWIRE_ERR_OPERATION_NOT_ALLOWED/)
})

t.test('what a browser cannot send is a page too: a body too large', async (t) => {
  const answer = await app.inject({
    method: 'POST', url: `${PREFIX}/payments/${captured.id as string}/refund`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'x='.padEnd(20_000, 'x')
  })
  t.equal(answer.statusCode, 413)
  t.match(text(answer.body), /The request could not be read/)
  t.equal(cookieFrom(answer), '')
})

t.test('what a provider-like gateway tells: ids, disputes, a failed call, unsettled refunds; found by provider id and attention', async (t) => {
  const reading = {
    providerIds: { order: 'ORD-77', capture: 'CAP-77' },
    disputes: [{ id: 'DP-1', state: 'open', amount: 500, reason: 'fraudulent' }, { id: 'DP-0', state: 'won' }],
    providerCallFailedAt: '2026-01-02T03:04:05.000Z',
    refundsPending: 2
  }
  const disputed = await payment(app, { gateway: 'scripted', amount: 2500, number: 'S-1', details: { reading } })
  const page = text((await get(`/payments/${disputed.id as string}`)).body)
  t.match(page, /Provider ids What Provider's id order ORD-77 capture CAP-77/)
  t.match(page, /DP-1 open €5.00 fraudulent DP-0 won —/)
  t.match(page, /Jan 2, 2026, 3:04:05 AM UTC A call to the provider failed without an answer; Sync finds out what happened/)
  t.match(page, /2 refunds asked of the provider and not settled yet/)
  t.match(page, /Needs attention provider call failed \(from Jan 2, 2026/)
  const found = text((await get('/?provider=CAP-77')).body)
  t.match(found, /S-1/)
  t.match(text((await get('/?attention=yes&gateway=scripted')).body), /S-1 scripted Captured €25.00 €0.00 provider call failed/)
})

t.test('sync: nothing new is said so; a status the provider moved is shown', async (t) => {
  const quiet = await payment(app, { gateway: 'scripted', amount: 700, number: 'S-2' })
  const { answer } = await confirmAndPost(app, `${PREFIX}/payments/${quiet.id as string}/sync`)
  t.equal(answer.statusCode, 200)
  t.match(text(answer.body), /Synced: the provider had nothing new./)
  const moved = await payment(app, { gateway: 'scripted', amount: 800, number: 'S-3', paid: false, details: { syncTo: 'canceled' } })
  const { confirm, answer: synced } = await confirmAndPost(app, `${PREFIX}/payments/${moved.id as string}/sync`)
  t.match(text(confirm.body), /Sync with the provider S-3\?/)
  t.notMatch(text(confirm.body), /cannot be undone/)
  t.match(text(synced.body), /Synced. The payment is now canceled./)
})

t.test('capture an authorization; its expiry on the timeline before', async (t) => {
  const held = await payment(app, { gateway: 'scripted', amount: 900, number: 'S-4', authorize: true, details: { reading: { authorizationExpiresAt: '2099-01-01T00:00:00.000Z' } } })
  const before = text((await get(`/payments/${held.id as string}`)).body)
  t.match(before, /Status Authorized/)
  t.match(before, /Jan 1, 2099, 12:00:00 AM UTC The authorization expires/)
  const { answer } = await confirmAndPost(app, `${PREFIX}/payments/${held.id as string}/capture`)
  t.match(text(answer.body), /Captured. The payment is now captured. .*Captured €9.00/)
  t.notMatch(text(answer.body), /The authorization expires/)
})

t.test('a refund the provider declines: the payment again with the provider\'s words and code, nothing refunded', async (t) => {
  const declining = await payment(app, { gateway: 'scripted', amount: 1000, number: 'S-5', details: { decline: true } })
  const { answer } = await confirmAndPost(app, `${PREFIX}/payments/${declining.id as string}/refund?amount=1.00`)
  t.ok(answer.statusCode >= 400 && answer.statusCode < 600, `${answer.statusCode}`)
  t.match(text(answer.body), /declined the refund .*Code: PAYWIRE_ERR_PROVIDER.* Refunded €0.00/)
})
