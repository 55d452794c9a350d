import t from 'tap'
import { GetCurrency, GetCurrencyAction } from '../../../../../../plugins/core/engine/index.ts'

t.test('fills GetCurrency from an alphabetic or numeric ISO 4217 code', async (t) => {
  const action = new GetCurrencyAction()
  for (const code of ['EUR', 'eur', 978, '978']) {
    const request = new GetCurrency(code)
    t.ok(action.supports(request))
    action.execute(request)
    t.match(request, { code, alpha3: 'EUR', numeric: '978', name: 'Euro', exp: 2 }, String(code))
    t.ok(request.countries.includes('France'))
  }
  const yen = new GetCurrency('JPY')
  action.execute(yen)
  t.equal(yen.exp, 0)
  t.notOk(action.supports({ code: 'EUR' }))
})

t.test('an unknown code is a coded 400 error', async (t) => {
  t.throws(() => new GetCurrencyAction().execute(new GetCurrency('XYZ')), { code: 'PAYWIRE_ERR_UNKNOWN_CURRENCY', statusCode: 400 })
})
