import t from 'tap'
import { deprecate, PAYWIREDEP003, recordDeprecations } from '../../../../plugins/core/engine/deprecations.ts'
import {
  Authorize, Capture, Gateway, getCurrentHttpRequest, runWithHttpRequest, Sync, type HttpRequestData
} from '../../../../plugins/core/engine/index.ts'
import { FnAction, FnGatewayAction, tick } from '../../../helpers/engine.ts'

/*
 * The HTTP request, the gateway execute and the deprecation recorders share one per-chain
 * frame (async-chain.ts): a run of one must keep the others, and concurrent chains must not
 * see each other's.
 */

function httpRequest (uri: string): HttpRequestData {
  return { method: 'GET', uri, query: {}, request: {}, content: '', headers: {}, clientIp: '', userAgent: '' }
}

t.test('concurrent chains each keep their own HTTP request, execute nesting and recorder through one frame', async (t) => {
  const seen: Record<string, string[]> = {}
  const note = (id: string, line: string) => { (seen[id] ??= []).push(line) }
  const gateway = new Gateway()
    .addExtension({ onPreExecute: (context) => { note((context.request as Capture).model as string, `depth ${context.previous.length} ${getCurrentHttpRequest()?.uri}`) } })
    .addAction(new FnGatewayAction(Capture, async (request, gateway) => {
      await tick()
      await gateway.execute(new Sync(request.model))
      note(request.model as string, `after nested ${getCurrentHttpRequest()?.uri}`)
    }))
    .addAction(new FnGatewayAction(Sync, async (request, gateway) => {
      await tick()
      if (request.model === 'b') deprecate(PAYWIREDEP003)
      // An HTTP request set inside an execute keeps the execute: a nested execute still nests.
      await runWithHttpRequest(httpRequest(`/inner/${request.model as string}`), async () => {
        await tick()
        await gateway.execute(new Authorize(request.model))
      })
    }))
    .addAction(new FnAction(Authorize, async () => { await tick() }))
  const codes: Record<string, string[]> = { a: [], b: [], c: [] }
  await Promise.all(['a', 'b', 'c'].map((id) => recordDeprecations(codes[id] as string[], () =>
    runWithHttpRequest(httpRequest(`/capture/${id}`), () => gateway.execute(new Capture(id))))))
  for (const id of ['a', 'b', 'c']) {
    t.same(seen[id], [`depth 0 /capture/${id}`, `depth 1 /capture/${id}`, `depth 2 /inner/${id}`, `after nested /capture/${id}`], id)
  }
  t.same(codes, { a: [], b: ['PAYWIREDEP003'], c: [] }, 'a warning is recorded by its own chain only, across the HTTP request and executes')
  t.equal(getCurrentHttpRequest(), undefined, 'nothing is left behind outside the runs')
})
