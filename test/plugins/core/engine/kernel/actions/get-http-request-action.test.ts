import t from 'tap'
import { GetHttpRequest, GetHttpRequestAction, runWithHttpRequest, type HttpRequestData } from '../../../../../../plugins/core/engine/index.ts'

function httpRequest (fields: Partial<HttpRequestData> = {}): HttpRequestData {
  return {
    method: 'GET',
    uri: '/capture?PayerID=P1',
    query: { PayerID: 'P1' },
    request: {},
    content: '',
    headers: { 'user-agent': 'test' },
    clientIp: '203.0.113.9',
    userAgent: 'test',
    ...fields
  }
}

t.test('inside runWithHttpRequest, GetHttpRequest is filled from the request being served', async (t) => {
  const action = new GetHttpRequestAction()
  const request = new GetHttpRequest()
  t.ok(action.supports(request))
  t.notOk(action.supports({}))
  const served = httpRequest({ method: 'POST', content: '{"a":1}', request: { a: 1 } })
  await runWithHttpRequest(served, async () => {
    await Promise.resolve()
    action.execute(request)
  })
  t.same({ ...request }, served)
})

t.test('outside HTTP it stays empty', async (t) => {
  const request = new GetHttpRequest()
  new GetHttpRequestAction().execute(request)
  t.same({ ...request }, { method: '', uri: '', query: {}, request: {}, content: '', headers: {}, clientIp: '', userAgent: '' })
})

t.test('concurrent requests each see their own HTTP request', async (t) => {
  const action = new GetHttpRequestAction()
  const seen = await Promise.all(['A', 'B', 'C'].map((id) => runWithHttpRequest(httpRequest({ uri: `/capture/${id}` }), async () => {
    await new Promise((resolve) => setImmediate(resolve))
    const request = new GetHttpRequest()
    action.execute(request)
    return request.uri
  })))
  t.same(seen, ['/capture/A', '/capture/B', '/capture/C'])
})
