/*
 * Around the shop (demo/furniture.ts): an HTML page for every browser request, coded JSON for
 * API clients, and never an internal message on either.
 */
import t from 'tap'
import { buildDemoShop } from '../../app.ts'
import { Payment } from '../../plugins/core/index.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

t.test('the shop\'s own error answers never carry internal messages', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  app.get('/boom', async () => { throw new Error('ERR Error running script (call to f_1234): @user_script:3: OOM') })
  const storage = app.paywire.getStorage(Payment)
  storage.update = async () => { throw new Error('WRONGPASS invalid username-password pair; script: local x = KEYS[1]') }
  const page = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, accept: 'text/html' } })
  t.equal(page.statusCode, 500)
  t.match(page.body, 'Something went wrong on our side; nothing was charged.')
  t.notMatch(page.body, /WRONGPASS|KEYS\[/)
  t.match(page.body, 'value="1"', 'with the form as the buyer filled it, to try again')
  const json = await app.inject({ url: '/boom', headers: { accept: 'application/json' } })
  t.same(json.json(), { statusCode: 500, code: 'DEMO_ERR_INTERNAL', message: 'Something went wrong on our side; nothing was charged. Please try again.' })
  const html = await app.inject({ url: '/boom', headers: { accept: 'text/html' } })
  t.notMatch(html.body, 'user_script')
  const notFound = await app.inject({ url: '/nowhere', headers: { accept: 'application/json' } })
  t.equal(notFound.statusCode, 404)
})

t.test('a browser gets a page for a wrong address and for GET /checkout; an API client gets coded JSON', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  const missing = await app.inject({ url: '/nowhere?x=1', headers: { accept: 'text/html' } })
  t.equal(missing.statusCode, 404)
  t.match(missing.headers['content-type'], /^text\/html/)
  t.match(missing.body, '<h1>Page not found</h1>')
  t.match(missing.body, '<a class="shop" href="/">Back to the shop</a>')
  t.same((await app.inject({ url: '/nowhere?x=1', headers: { accept: 'application/json' } })).json(),
    { statusCode: 404, code: 'DEMO_ERR_NOT_FOUND', message: 'No page at GET /nowhere.' })
  for (const accept of ['text/html', '*/*']) {
    const form = await app.inject({ url: '/checkout', headers: { accept } })
    t.equal(form.statusCode, 200, `GET /checkout (${accept}) is the form`)
    t.match(form.headers['content-type'], /^text\/html/)
    t.match(form.body, '<form method="post" action="/checkout">')
  }
})

t.test('a client mistake outside the form keeps its message, on the shop\'s page', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  app.get('/teapot', async () => { throw Object.assign(new Error('I am a teapot'), { statusCode: 418 }) })
  const page = await app.inject({ url: '/teapot', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 418)
  t.match(page.body, '<p class="error" role="alert">I am a teapot</p>')
  t.match(page.body, 'value="19.99"', 'a fresh form')
  t.same((await app.inject({ url: '/teapot', headers: { accept: 'application/json' } })).json(), { statusCode: 418, code: 'DEMO_ERR_REQUEST', message: 'I am a teapot' })
})
