import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { HttpClient, UndiciHttpClient } from '../../../../plugins/core/engine/index.ts'

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

async function server (t: { teardown: (fn: () => unknown) => void }, handle: (request: IncomingMessage, response: ServerResponse) => void) {
  const seen: Seen[] = []
  const http = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => { body += chunk.toString() })
    request.on('end', () => {
      seen.push({ method: request.method as string, url: request.url as string, headers: request.headers, body })
      handle(request, response)
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => { http.closeAllConnections(); http.close(resolve) }))
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, seen }
}

t.test('sends the method, headers and body; returns status, headers and body text', async (t) => {
  const { url, seen } = await server(t, (_request, response) => {
    response.setHeader('set-cookie', ['a=1', 'b=2'])
    response.setHeader('content-type', 'application/json')
    response.writeHead(201).end('{"id":"O-1"}')
  })
  const client = new UndiciHttpClient()
  t.teardown(() => client.close())
  t.ok(client instanceof HttpClient)
  const response = await client.send({ method: 'POST', url: `${url}/orders?x=1`, headers: { 'content-type': 'application/json', authorization: 'Bearer t' }, body: '{"amount":1}' })
  t.equal(response.statusCode, 201)
  t.equal(response.body, '{"id":"O-1"}')
  t.equal(response.headers['content-type'], 'application/json')
  t.equal(response.headers['set-cookie'], 'a=1, b=2', 'repeated headers are joined')
  t.match(seen[0], { method: 'POST', url: '/orders?x=1', body: '{"amount":1}', headers: { authorization: 'Bearer t' } })
})

t.test('resolves on error statuses instead of rejecting', async (t) => {
  const { url } = await server(t, (_request, response) => { response.writeHead(500).end('boom') })
  const client = new UndiciHttpClient()
  t.teardown(() => client.close())
  t.match(await client.send({ method: 'GET', url }), { statusCode: 500, body: 'boom' })
})

t.test('rejects when the whole-request budget runs out', async (t) => {
  const { url } = await server(t, () => { /* never answers */ })
  const client = new UndiciHttpClient()
  t.teardown(() => client.close())
  await t.rejects(client.send({ method: 'GET', url, timeoutMs: 50 }), { name: /TimeoutError|AbortError/ })
})

t.test('requests with a connect timeout use a pool per timeout, which close() releases', async (t) => {
  const { url } = await server(t, (_request, response) => { response.end('ok') })
  const client = new UndiciHttpClient()
  t.equal((await client.send({ method: 'GET', url, connectTimeoutMs: 1000 })).body, 'ok')
  t.equal((await client.send({ method: 'GET', url, connectTimeoutMs: 1000 })).body, 'ok')
  t.equal((await client.send({ method: 'GET', url, connectTimeoutMs: 2000 })).body, 'ok')
  await client.close()
  t.equal((await client.send({ method: 'GET', url, connectTimeoutMs: 1000 })).body, 'ok', 'usable again after close()')
  await client.close()
  await t.rejects(client.send({ method: 'GET', url: 'http://127.0.0.1:1', connectTimeoutMs: 1000 }), 'connection errors reject')
})
