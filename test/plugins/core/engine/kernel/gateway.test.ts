import t from 'tap'
import {
  Authorize, Capture, Context, Gateway, GetToken, HttpRedirect, HttpResponse, Identity, Payment, Reply, Sync,
  type Action, type Extension
} from '../../../../../plugins/core/engine/index.ts'
import { FnAction, FnGatewayAction, recordingExtension, rejection, tick } from '../../../../helpers/engine.ts'

/** Everything reachable from an error through `cause` links (and AggregateError's `errors`), depth first. */
function causes (error: unknown, seen = new Set<unknown>([error])): unknown[] {
  const links = [(error as { cause?: unknown } | null)?.cause, ...((error as { errors?: unknown[] } | null)?.errors ?? [])]
  return links.filter((link) => link !== undefined && !seen.has(link)).flatMap((link) => {
    seen.add(link)
    return [link, ...causes(link, seen)]
  })
}

t.test('the first action whose supports() is true runs; the ones after it are not asked', async (t) => {
  const sync = new FnAction(Sync)
  const first = new FnAction(Capture)
  const second = new FnAction(Capture)
  const gateway = new Gateway().addAction(sync).addAction(first).addAction(second)
  const request = new Capture({})
  t.equal(await gateway.execute(request), undefined)
  t.same(first.runs, [request])
  t.equal(sync.supportsCalls, 1)
  t.equal(second.supportsCalls, 0)
  t.same(second.runs, [])
  t.same(gateway.actions, [sync, first, second])
})

t.test('prepend (the flag or a prepend: true marker) puts an action or extension first', async (t) => {
  const appended = new FnAction(Capture)
  const flagged = new FnAction(Capture)
  const marked = Object.assign(new FnAction(Capture), { prepend: true as const })
  const gateway = new Gateway().addAction(appended).addAction(flagged, true)
  await gateway.execute(new Capture({}))
  t.equal(flagged.runs.length, 1)
  gateway.addAction(marked)
  await gateway.execute(new Capture({}))
  t.equal(marked.runs.length, 1)
  t.same(gateway.actions, [marked, flagged, appended])

  const log: string[] = []
  const last = recordingExtension('last', log)
  const first = recordingExtension('first', log)
  const markedExtension = Object.assign(recordingExtension('marked', log), { prepend: true as const })
  gateway.addExtension(last).addExtension(first, true).addExtension(markedExtension)
  await gateway.execute(new Capture({}))
  t.same(log.filter((line) => line.endsWith('onPreExecute')), ['marked.onPreExecute', 'first.onPreExecute', 'last.onPreExecute'])
  t.same(gateway.extensions, [markedExtension, first, last])
})

t.test('a reply is returned with catchReply, thrown without it, and is not an Error', async (t) => {
  const redirect = new HttpRedirect('https://psp.example/pay')
  const gateway = new Gateway().addAction(new FnAction(Capture, () => { throw redirect }))
  t.equal(await gateway.execute(new Capture({}), { catchReply: true }), redirect)
  const thrown = await rejection(gateway.execute(new Capture({})))
  t.equal(thrown, redirect)
  t.ok(thrown instanceof Reply)
  t.notOk(thrown instanceof Error)
})

t.test('extension hooks run in order around the action: every onPreExecute, every onExecute, the action, every onPostExecute', async (t) => {
  const log: string[] = []
  const gateway = new Gateway()
    .addExtension(recordingExtension('a', log))
    .addExtension(recordingExtension('b', log))
    .addExtension({}) // hooks are optional
    .addExtension({ onExecute: () => { log.push('sync.onExecute') } })
    .addAction(new FnAction(Capture, () => { log.push('action') }))
  await gateway.execute(new Capture({}))
  t.same(log, [
    'a.onPreExecute', 'b.onPreExecute',
    'a.onExecute', 'b.onExecute', 'sync.onExecute',
    'action',
    'a.onPostExecute', 'b.onPostExecute'
  ])
})

t.test('extensions see the context: gateway, request, action, and reply or exception after execute', async (t) => {
  const seen: Array<Pick<Context, 'action' | 'reply' | 'exception'> & { hook: string }> = []
  const snapshot = (hook: string) => (context: Context) => {
    seen.push({ hook, action: context.action, reply: context.reply, exception: context.exception })
  }
  const failure = new Error('declined')
  const redirect = new HttpRedirect('https://psp.example')
  const capture = new FnAction(Capture, () => { throw redirect })
  const authorize = new FnAction(Authorize, () => { throw failure })
  const gateway = new Gateway().addAction(capture).addAction(authorize).addExtension({
    onPreExecute: snapshot('pre'), onExecute: snapshot('execute'), onPostExecute: snapshot('post')
  })
  const request = new Capture({})
  await gateway.execute(request, { catchReply: true })
  t.same(seen, [
    { hook: 'pre', action: undefined, reply: undefined, exception: undefined },
    { hook: 'execute', action: capture, reply: undefined, exception: undefined },
    { hook: 'post', action: capture, reply: redirect, exception: undefined }
  ])
  seen.length = 0
  await t.rejects(gateway.execute(new Authorize({})), failure)
  t.same(seen.at(-1), { hook: 'post', action: authorize, reply: undefined, exception: failure })

  let context: Context | undefined
  const inspected = new Gateway().addAction(new FnAction(Capture)).addExtension({ onPreExecute: (c) => { context = c } })
  await inspected.execute(request)
  t.equal(context?.request, request)
  t.equal(context?.gateway, inspected)
})

t.test('an action set in onPreExecute runs without any supports() call', async (t) => {
  const found = new FnAction(Capture)
  const picked = new FnAction(Sync)
  const gateway = new Gateway().addAction(found).addExtension({ onPreExecute: (context) => { context.action = picked } })
  const request = new Capture({})
  await gateway.execute(request)
  t.same(picked.runs, [request])
  t.equal(picked.supportsCalls, 0)
  t.equal(found.supportsCalls, 0)
  t.same(found.runs, [])
})

t.test('an action set in onExecute replaces the one found', async (t) => {
  const found = new FnAction(Capture)
  const replacement = new FnAction(Sync)
  const gateway = new Gateway().addAction(found).addExtension({
    onExecute: (context) => {
      t.equal(context.action, found)
      context.action = replacement
    }
  })
  await gateway.execute(new Capture({}))
  t.same(found.runs, [])
  t.equal(replacement.runs.length, 1)
})

t.test('onPostExecute may replace a reply or clear it', async (t) => {
  const original = new HttpRedirect('https://psp.example/a')
  const replacement = new HttpResponse('<p>hi</p>')
  const action = new FnAction(Capture, () => { throw original })

  const replacing = new Gateway().addAction(action).addExtension({ onPostExecute: (context) => { context.reply = replacement } })
  t.equal(await replacing.execute(new Capture({}), { catchReply: true }), replacement)
  t.equal(await rejection(replacing.execute(new Capture({}))), replacement)

  const clearing = new Gateway().addAction(action).addExtension({ onPostExecute: (context) => { context.reply = undefined } })
  t.equal(await clearing.execute(new Capture({})), undefined)
  t.equal(await clearing.execute(new Capture({}), { catchReply: true }), undefined)
})

t.test('onPostExecute may replace an error or clear it', async (t) => {
  const original = new Error('original')
  const replacement = new TypeError('replacement')
  const action = new FnAction(Capture, () => { throw original })

  const replacing = new Gateway().addAction(action).addExtension({ onPostExecute: (context) => { context.exception = replacement } })
  t.equal(await rejection(replacing.execute(new Capture({}))), replacement)

  const clearing = new Gateway().addAction(action).addExtension({ onPostExecute: (context) => { context.exception = undefined } })
  t.equal(await clearing.execute(new Capture({})), undefined)
})

t.test('errors in onPreExecute or onExecute skip the action and still go through every onPostExecute', async (t) => {
  for (const failingHook of ['onPreExecute', 'onExecute'] as const) {
    const log: string[] = []
    const failure = new Error(`${failingHook} failed`)
    const action = new FnAction(Capture)
    const gateway = new Gateway()
      .addExtension(recordingExtension('failing', log, { [failingHook]: () => { throw failure } }))
      .addExtension(recordingExtension('other', log, { onPostExecute: (context) => { t.equal(context.exception, failure) } }))
      .addAction(action)
    await t.rejects(gateway.execute(new Capture({})), failure)
    t.same(action.runs, [], `${failingHook}: the action did not run`)
    t.same(log.filter((line) => line.endsWith('onPostExecute')), ['failing.onPostExecute', 'other.onPostExecute'])
  }
})

t.test('a reply thrown from onPreExecute is handled like an action reply', async (t) => {
  const redirect = new HttpRedirect('https://shop.example/login')
  const action = new FnAction(Capture)
  const gateway = new Gateway().addAction(action).addExtension({ onPreExecute: () => { throw redirect } })
  t.equal(await gateway.execute(new Capture({}), { catchReply: true }), redirect)
  t.same(action.runs, [])
})

t.test('an extension failing in onPostExecute: its error is thrown with the original as innermost cause', async (t) => {
  const original = new Error('action failed')
  const inner = new Error('extension root cause')
  const failure = new Error('extension failed', { cause: inner })
  const gateway = new Gateway()
    .addAction(new FnAction(Capture, () => { throw original }))
    .addExtension({ onPostExecute: () => { throw failure } })
  await t.rejects(gateway.execute(new Capture({})), failure)
  t.same(causes(failure), [inner, original])
  t.equal(original.cause, undefined)
})

t.test('an original already in the failing extension\'s chain is not attached twice', async (t) => {
  const original = new Error('action failed')
  const wrapping = new Error('wrapping', { cause: original })
  const wrapper = new Gateway()
    .addAction(new FnAction(Capture, () => { throw original }))
    .addExtension({ onPostExecute: () => { throw wrapping } })
  await t.rejects(wrapper.execute(new Capture({})), wrapping)
  t.same(causes(wrapping), [original])

  const rethrowing = new Gateway()
    .addAction(new FnAction(Capture, () => { throw original }))
    .addExtension({ onPostExecute: (context) => { throw context.exception } })
  await t.rejects(rethrowing.execute(new Capture({})), original)
  t.equal(original.cause, undefined, 'no cycle: the original does not become its own cause')
})

t.test('an extension failing in onPostExecute after a reply: the error wins, the reply is its cause', async (t) => {
  const redirect = new HttpRedirect('https://psp.example')
  const failure = new Error('could not save')
  const gateway = new Gateway()
    .addAction(new FnAction(Capture, () => { throw redirect }))
    .addExtension({ onPostExecute: () => { throw failure } })
  await t.rejects(gateway.execute(new Capture({}), { catchReply: true }), failure)
  t.equal(failure.cause, redirect)
})

t.test('an extension failing in onPostExecute after a success throws its error unchanged', async (t) => {
  const failure = new Error('audit log down')
  const gateway = new Gateway().addAction(new FnAction(Capture)).addExtension({ onPostExecute: () => { throw failure } })
  await t.rejects(gateway.execute(new Capture({})), failure)
  t.equal(failure.cause, undefined)
})

t.test('a cyclic cause chain on the extension\'s error does not hang', async (t) => {
  const a = new Error('a')
  const b = new Error('b', { cause: a })
  a.cause = b
  const gateway = new Gateway()
    .addAction(new FnAction(Capture, () => { throw new Error('original') }))
    .addExtension({ onPostExecute: () => { throw a } })
  await t.rejects(gateway.execute(new Capture({})), a)
  t.equal(a.cause, b)
  t.equal(b.cause, a)
})

t.test('non-Error throws become PAYWIRE_ERR_NON_ERROR_THROWN with the value as cause', async (t) => {
  const bare = Object.create(null) as object
  const cases: Array<[unknown, RegExp]> = [
    ['declined', /'declined'/],
    [undefined, /: undefined\./],
    [42, /: 42\./],
    [{ status: 402 }, /an instance of Object/],
    [new (class PspFailure {})(), /an instance of PspFailure/],
    [bare, /an instance of Object/]
  ]
  for (const [value, message] of cases) {
    const gateway = new Gateway().addAction(new FnAction(Capture, () => { throw value }))
    const error = await rejection(gateway.execute(new Capture({})))
    t.ok(error instanceof Error, String(message))
    t.match(error, { code: 'PAYWIRE_ERR_NON_ERROR_THROWN', message, statusCode: 500 })
    t.equal((error as Error).cause, value)
  }
  const nope: unknown = 'nope'
  const extension = new Gateway().addAction(new FnAction(Capture)).addExtension({ onExecute: () => { throw nope } })
  await t.rejects(extension.execute(new Capture({})), { code: 'PAYWIRE_ERR_NON_ERROR_THROWN', cause: 'nope' })
})

t.test('nested executes: context.previous lists the enclosing contexts, outermost first', async (t) => {
  const seen: Array<{ request: unknown, previous: unknown[], root: Context }> = []
  const gateway = new Gateway()
    .addExtension({ onPreExecute: (context) => { seen.push({ request: context.request, previous: context.previous.map((c) => c.request), root: context.root }) } })
    .addAction(new FnGatewayAction(Capture, (request, gateway) => gateway.execute(new Authorize(request.model))))
    .addAction(new FnGatewayAction(Authorize, (request, gateway) => gateway.execute(new Sync(request.model))))
    .addAction(new FnAction(Sync))
  const capture = new Capture({})
  await gateway.execute(capture)
  t.equal(seen.length, 3)
  const [outer, middle, inner] = seen as [typeof seen[0], typeof seen[0], typeof seen[0]]
  t.same(outer.previous, [])
  t.same(middle.previous, [capture])
  t.equal(inner.previous.length, 2)
  t.equal(inner.previous[0], capture)
  t.ok(inner.previous[1] instanceof Authorize)
  t.equal(inner.root, outer.root)
  t.equal(outer.root.request, capture)
})

t.test('a reply thrown in a nested execute bubbles through every level', async (t) => {
  const redirect = new HttpRedirect('https://psp.example/approve')
  const replies: Array<[string, unknown]> = []
  const gateway = new Gateway()
    .addExtension({ onPostExecute: (context) => { replies.push([context.request!.constructor.name, context.reply]) } })
    .addAction(new FnGatewayAction(Capture, (request, gateway) => gateway.execute(new Authorize(request.model))))
    .addAction(new FnAction(Authorize, () => { throw redirect }))
  t.equal(await gateway.execute(new Capture({}), { catchReply: true }), redirect)
  t.same(replies, [['Authorize', redirect], ['Capture', redirect]])
})

t.test('gateway-aware actions get the gateway injected before they execute', async (t) => {
  let injected: Gateway | undefined
  const action = new FnGatewayAction(Capture, (_request, gateway) => { injected = gateway })
  const gateway = new Gateway().addAction(action)
  await gateway.execute(new Capture({}))
  t.equal(injected, gateway)
})

t.test('an execute on another gateway from inside an action starts that gateway\'s own chain', async (t) => {
  const previousLengths: number[] = []
  const other = new Gateway()
    .addExtension({ onPreExecute: (context) => { previousLengths.push(context.previous.length) } })
    .addAction(new FnAction(Sync))
  const gateway = new Gateway().addAction(new FnAction(Capture, () => other.execute(new Sync({}))))
  await gateway.execute(new Capture({}))
  t.same(previousLengths, [0])
})

t.test('concurrent executes on one gateway never share contexts', async (t) => {
  const tops: Record<string, number> = {}
  const depths: Record<string, number[]> = {}
  const gateway = new Gateway()
    .addExtension({
      onPreExecute: (context) => {
        const id = (context.request as Capture).model as string
        ;(depths[id] ??= []).push(context.previous.length)
        if (context.previous.length === 0) tops[id] = (tops[id] ?? 0) + 1
      }
    })
    .addAction(new FnGatewayAction(Capture, async (request, gateway) => {
      await tick()
      await gateway.execute(new Sync(request.model))
      await tick()
      await gateway.execute(new Sync(request.model))
    }))
    .addAction(new FnAction(Sync, tick))
  await Promise.all(['a', 'b', 'c'].map((id) => gateway.execute(new Capture(id))))
  t.same(tops, { a: 1, b: 1, c: 1 })
  t.same(depths, { a: [0, 1, 1], b: [0, 1, 1], c: [0, 1, 1] })
})

t.test('RequestNotSupported names the request and its model and says what to check', async (t) => {
  const gateway = new Gateway().addAction(new FnAction(Sync))
  const request = new Capture(new Identity('p-1', 'Payment'))
  const error = await rejection(gateway.execute(request)) as Error & { request: unknown }
  t.match(error, { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED', statusCode: 500 })
  t.match(error.message, /^Request Capture\{model: Identity\} is not supported\./)
  t.match(error.message, /storage for "Payment" is registered/)
  t.match(error.message, /find\(\) returns a model for id "p-1"/)
  t.match(error.message, /one of its actions must return true from supports\(\)/)
  t.equal(error.request, request)

  const plain = await gateway.execute(new Capture(new Payment())).catch((thrown: Error) => thrown)
  t.match(plain, { message: /^Request Capture\{model: Payment\} is not supported\. Make sure the gateway supports/ })
  t.notMatch(plain, { message: /storage/ })
  await t.rejects(gateway.execute(new GetToken('h')), { message: /^Request GetToken is not supported/ })
  await t.rejects(gateway.execute(null), { message: /^Request null is not supported/ })
  await t.rejects(new Gateway().execute(new Capture({})), { message: /Capture\{model: ArrayObject\}/ })
})

t.test('findActionSupported is usable on its own', async (t) => {
  const action: Action = new FnAction(Capture)
  const gateway = new Gateway().addAction(action)
  t.equal(gateway.findActionSupported(new Capture({})), action)
  t.throws(() => gateway.findActionSupported(new Sync({})), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED' })
})

/*
 * Known bugs in gateway.ts (left failing on purpose; see the report):
 */

t.test('a reply thrown by an extension\'s onPostExecute is a reply, not a PAYWIRE_ERR_NON_ERROR_THROWN', async (t) => {
  const redirect = new HttpRedirect('https://shop.example/thanks')
  const redirecting: Extension = { onPostExecute: () => { throw redirect } }
  const gateway = new Gateway().addAction(new FnAction(Capture)).addExtension(redirecting)
  t.equal(await gateway.execute(new Capture({}), { catchReply: true }).catch((thrown: unknown) => thrown), redirect)
})

t.test('a non-Error thrown by onPostExecute while an error is pending keeps that error reachable', async (t) => {
  const original = new Error('action failed')
  const extensionFailure: unknown = 'extension failed'
  const gateway = new Gateway()
    .addAction(new FnAction(Capture, () => { throw original }))
    .addExtension({ onPostExecute: () => { throw extensionFailure } })
  const error = await rejection(gateway.execute(new Capture({})))
  t.match(error, { code: 'PAYWIRE_ERR_NON_ERROR_THROWN' })
  t.ok(causes(error).includes(extensionFailure), 'the thrown value is reachable')
  t.ok(causes(error).includes(original), 'the original error is reachable')
})

t.test('a thrown instance of an anonymous class is described as an Object, not by an empty name', async (t) => {
  const gateway = new Gateway().addAction(new FnAction(Capture, () => { throw new (class {})() }))
  t.match(await rejection(gateway.execute(new Capture({}))), { code: 'PAYWIRE_ERR_NON_ERROR_THROWN', message: /: an instance of Object\./ })
})

t.test('an extension failing in onPostExecute does not skip the later ones (the storage extension must still save)', async (t) => {
  const log: string[] = []
  const failure = new Error('audit log down')
  let seen: unknown
  const gateway = new Gateway()
    .addAction(new FnAction(Capture))
    .addExtension(recordingExtension('failing', log, { onPostExecute: () => { throw failure } }))
    .addExtension(recordingExtension('storage', log, { onPostExecute: (context) => { seen = context.exception } }))
  await t.rejects(gateway.execute(new Capture({})), failure)
  t.same(log.filter((line) => line.endsWith('onPostExecute')), ['failing.onPostExecute', 'storage.onPostExecute'])
  t.equal(seen, failure, 'later extensions see the failure as the exception')
})
