import swagger from '@fastify/swagger'
import { Validator } from '@seriousme/openapi-schema-validator'
import Fastify from 'fastify'
import t from 'tap'
import { PAYWIRE_TAG, paywire } from '../../../plugins/core/index.ts'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { pathOf, storedPayment } from './fixtures.ts'

/*
 * The payment routes as @fastify/swagger documents them: a valid OpenAPI 3 document (checked
 * by an OpenAPI schema validator), with tags, summaries, unique operation ids and every
 * status each route answers, and no query parameter made up from the schema's keywords.
 */

interface Operation {
  tags?: string[]
  summary?: string
  operationId?: string
  parameters?: Array<{ in: string, name: string, required?: boolean }>
  responses: Record<string, { description: string, content?: Record<string, { schema: unknown }>, headers?: Record<string, unknown> }>
}

const app = Fastify()
t.teardown(() => app.close())
await app.register(swagger, { openapi: { openapi: '3.0.3', info: { title: 'shop', version: '1.0.0' } } })
await app.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } }, health: true })
await app.register(offlineGateway)
await app.ready()
const document = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })))
const named = (path: string, method: string): Operation => document.paths[path]![method]!

t.test('the document is valid OpenAPI 3', async (t) => {
  const validator = new Validator()
  // A copy: the validator resolves references in what it is given.
  const result = await validator.validate(JSON.parse(JSON.stringify(document)))
  t.same(result.errors ?? [], [], 'no schema errors')
  t.ok(result.valid)
  t.equal(validator.version, '3.0')
})

t.test('every Paywire route is documented, with its tag, a summary and a unique operation id', async (t) => {
  const paths = Object.keys(document.paths).sort()
  t.same(paths, [
    '/payment/authorize/{token}', '/payment/cancel/{token}', '/payment/capture/{token}', '/payment/done/{token}', '/payment/health',
    '/payment/notify/unsafe/{gateway}', '/payment/notify/{token}', '/payment/payout/{token}', '/payment/refund/{token}', '/payment/sync/{token}'
  ])
  // HEAD routes (405: HEAD never runs a gateway) are left out, as @fastify/swagger does by default.
  t.same(Object.keys(document.paths['/payment/capture/{token}']!).sort(), ['get', 'post'])
  for (const { path, method, operation } of operations) {
    t.same(operation.tags, [PAYWIRE_TAG], `${method} ${path} is tagged`)
    t.ok(operation.summary !== undefined && operation.summary.length > 5, `${method} ${path} has a summary`)
  }
  const ids = operations.map(({ operation }) => operation.operationId)
  t.equal(ids.filter((id) => typeof id === 'string').length, operations.length, 'each operation has an id')
  t.equal(new Set(ids).size, ids.length, 'the ids are unique')
  t.equal(named('/payment/capture/{token}', 'get').operationId, 'paywireCapture')
  t.equal(named('/payment/capture/{token}', 'post').operationId, 'paywireCapturePost')
  t.equal(named('/payment/health', 'get').operationId, 'paywireHealth')
})

t.test('parameters: the token or gateway in the path, no query parameter made up from the return query\'s schema', async (t) => {
  for (const { path, method, operation } of operations) {
    const parameters = operation.parameters ?? []
    t.same(parameters.filter((parameter) => parameter.in === 'query'), [], `${method} ${path} has no query parameter`)
    const inPath = parameters.filter((parameter) => parameter.in === 'path').map((parameter) => [parameter.name, parameter.required])
    t.same(inPath, path.includes('{gateway}') ? [['gateway', true]] : path.includes('{token}') ? [['token', true]] : [], `${method} ${path}'s path parameters`)
  }
  t.notMatch(JSON.stringify(document), /"name":"(type|additionalProperties|patternProperties)"/, 'no parameter named after a schema keyword')
})

t.test('responses: every status a route answers, coded errors with the error body, redirects with Location', async (t) => {
  const capture = named('/payment/capture/{token}', 'get').responses
  t.same(Object.keys(capture).sort(), ['200', '204', '302', '303', '4XX', '5XX'])
  t.match(capture['303'], { headers: { location: { schema: { type: 'string' } } } }, 'a used link\'s redirect names Location')
  t.notOk(capture['303']!.content, 'a redirect has no body')
  t.match(capture['4XX']!.content, {
    'application/json': { schema: { type: 'object', required: ['statusCode', 'code', 'error', 'message'] } },
    'text/html': { schema: { type: 'string' } }
  })
  t.match(named('/payment/done/{token}', 'get').responses['200']!.content, {
    'application/json': { schema: { properties: { status: {}, message: {}, payment: {} } } },
    'text/html': { schema: { type: 'string' } }
  })
  t.same(Object.keys(named('/payment/notify/unsafe/{gateway}', 'post').responses).sort(), ['200', '204', '4XX', '5XX'])
  const health = named('/payment/health', 'get').responses
  t.same(Object.keys(health).sort(), ['200', '503'])
  t.match(health['503']!.content, { 'application/json': { schema: { properties: { status: { }, checks: { } } } } })
  for (const { path, method, operation } of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      t.not(response.description, 'Default Response', `${method} ${path} ${status} is described`)
    }
  }
})

t.test('the documented routes still answer as before: return parameters of any name, repeated ones, HEAD refused', async (t) => {
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  const head = await app.inject({ method: 'HEAD', url: pathOf(token.targetUrl) })
  t.equal(head.statusCode, 405)
  t.equal(head.headers.allow, 'GET, POST')
  t.equal(head.headers['content-type'], undefined, 'no body, no content type')
  const captured = await app.inject({ url: `${pathOf(token.targetUrl)}?PayerID=ABC&paymentId=PAY-1&x=1&x=2` })
  t.equal(captured.statusCode, 302, 'any return parameters are accepted')
  t.equal(captured.headers.location, token.afterUrl)
  const done = await app.inject({ url: pathOf(token.afterUrl) })
  t.equal(done.statusCode, 200)
  t.match(done.json(), { status: 'captured', payment: { number: 'ORDER-1' } })
  const unknown = await app.inject({ url: '/payment/capture/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.json(), { code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND', statusCode: 404, error: 'Not Found' })
})

t.test('with exposeHeadRoutes, the HEAD routes are documented too: 405 only, their own operation ids, still valid', async (t) => {
  const heads = Fastify()
  t.teardown(() => heads.close())
  await heads.register(swagger, { exposeHeadRoutes: true, openapi: { openapi: '3.0.3', info: { title: 'shop', version: '1.0.0' } } })
  await heads.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } } })
  await heads.register(offlineGateway)
  await heads.ready()
  const withHeads = heads.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }
  const result = await new Validator().validate(JSON.parse(JSON.stringify(withHeads)))
  t.same(result.errors ?? [], [])
  const all = Object.values(withHeads.paths).flatMap((methods) => Object.values(methods))
  t.equal(new Set(all.map((operation) => operation.operationId)).size, all.length, 'the ids are unique')
  const head = withHeads.paths['/payment/notify/unsafe/{gateway}']!.head!
  t.match(head, { operationId: 'paywireNotifyGateway-head', tags: [PAYWIRE_TAG], parameters: [{ in: 'path', name: 'gateway' }] })
  t.same(Object.keys(head.responses), ['405'])
  t.equal(withHeads.paths['/payment/done/{token}']!.head!.operationId, 'paywireDone-head', '@fastify/swagger\'s name for the GET route\'s HEAD')
})
