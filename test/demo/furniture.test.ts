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
