import t from 'tap'
import { Capture, HttpRedirect, HttpResponse, Identity, Payment } from '../../../../../plugins/core/engine/index.ts'
import { humanifyRequest, humanifyValue } from '../../../../../plugins/core/engine/observability/humanify.ts'

t.test('values are shown by class name, never by content', async (t) => {
  t.equal(humanifyValue(new Payment()), 'Payment')
  t.equal(humanifyValue(null), 'null')
  t.equal(humanifyValue(undefined), 'undefined')
  t.equal(humanifyValue('secret-card-number'), 'string')
  t.equal(humanifyValue(12), 'number')
  t.equal(humanifyValue({ a: 1 }), 'Object')
  t.equal(humanifyValue(Object.create(null)), 'Object')
  t.equal(humanifyValue(new (class {})()), 'Object', 'an anonymous class is still named')
})

t.test('requests show their model; redirects their URL', async (t) => {
  t.equal(humanifyRequest(new Capture(new Identity('p', 'Payment'))), 'Capture{model: Identity}')
  t.equal(humanifyRequest(new Capture(null)), 'Capture{model: null}')
  t.equal(humanifyRequest(new HttpRedirect('https://psp.example/x')), 'HttpRedirect{url: https://psp.example/x}')
  t.equal(humanifyRequest(new HttpResponse('x')), 'HttpResponse')
  t.equal(humanifyRequest('text'), 'string')
  t.equal(humanifyRequest(null), 'null')
})
