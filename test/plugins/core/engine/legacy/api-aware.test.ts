import t from 'tap'
import {
  ApiAware, Capture, Gateway, GatewayAwareAction, Refund, isApiAware, recordDeprecations,
  type Action, type ApiAwareInterface
} from '../../../../../plugins/core/engine/index.ts'
import { selectApi } from '../../../../../plugins/core/engine/legacy/api-aware.ts'

class AcmeApi {}
class OtherApi {}

class CaptureAction extends ApiAware(Object, AcmeApi) implements Action {
  supportsCalls = 0

  supports (request: unknown): boolean {
    this.supportsCalls++
    return request instanceof Capture
  }

  execute (): void {}
}

/** The 1.x idiom: the API class is set in the constructor. */
class RefundAction extends ApiAware(GatewayAwareAction) {
  constructor () {
    super()
    this.apiClass = AcmeApi
  }

  supports (request: unknown): boolean {
    return request instanceof Refund
  }

  execute (): void {}
}

class NoApiClassAction extends ApiAware(Object) implements Action {
  supports (): boolean { return false }
  execute (): void {}
}

function codesOf (run: () => unknown): string[] {
  const codes = new Set<string>()
  recordDeprecations(codes, run)
  return [...codes].sort()
}

t.test('ApiAware accepts an instance of its apiClass and exposes it as api', async (t) => {
  const api = new AcmeApi()
  const action = new CaptureAction()
  action.setApi(api)
  t.equal(action.api, api)
  const refund = new RefundAction()
  refund.setApi(api)
  t.equal(refund.api, api, 'apiClass set in the constructor works the same')
  t.ok(isApiAware(action))
  t.notOk(isApiAware({ supports () { return true } }))
  t.notOk(isApiAware(null))
})

t.test('ApiAware refuses another API with PAYWIRE_ERR_UNSUPPORTED_API', async (t) => {
  const action = new CaptureAction()
  t.throws(() => action.setApi(new OtherApi()), {
    code: 'PAYWIRE_ERR_UNSUPPORTED_API',
    message: 'Action CaptureAction does not support an instance of OtherApi: its apiClass is AcmeApi.'
  })
  t.throws(() => action.api, {
    code: 'PAYWIRE_ERR_API_NOT_FOUND',
    message: /^Cannot find right api for the action CaptureAction: it needs an instance of AcmeApi and the gateway has no API\./
  }, 'an action never given its API says so when it needs it')
})

t.test('an ApiAware action without apiClass is a coded error', async (t) => {
  t.throws(() => new NoApiClassAction().setApi(new AcmeApi()), {
    code: 'PAYWIRE_ERR_API_CLASS_MISSING',
    message: /NoApiClassAction is ApiAware but has no apiClass/
  })
  t.throws(() => new NoApiClassAction().api, { message: /needs an instance of its apiClass/ })
})

t.test('constructing an ApiAware action records PAYWIREDEP007', async (t) => {
  t.same(codesOf(() => new CaptureAction()), ['PAYWIREDEP007'])
})

t.test('selectApi() tries the APIs in order and keeps the first one the action accepts', async (t) => {
  const acme = new AcmeApi()
  const action = new CaptureAction()
  selectApi(action, [new OtherApi(), acme, new AcmeApi()])
  t.equal(action.api, acme)

  const error = t.throws(() => selectApi(new CaptureAction(), [new OtherApi(), 'not an api']), {
    code: 'PAYWIRE_ERR_API_NOT_FOUND',
    message: /the gateway has only an instance of OtherApi, an instance of string\./
  }) as Error
  t.match(error.cause, { code: 'PAYWIRE_ERR_UNSUPPORTED_API' }, 'the last refusal is the cause')

  const broken: ApiAwareInterface = { setApi () { throw new RangeError('broken setter') } }
  t.throws(() => selectApi(broken, [acme]), RangeError, 'other errors are not taken for a refusal')
})

t.test('a gateway with APIs gives them to ApiAware actions at lookup, as Payum did', async (t) => {
  const acme = new AcmeApi()
  const refund = new RefundAction()
  const capture = new CaptureAction()
  const gateway = new Gateway().addAction(refund).addAction(capture)
  t.same(codesOf(() => gateway.addApi(new OtherApi()).addApi(acme)), ['PAYWIREDEP006'])
  t.same(gateway.apis.length, 2)

  t.same(codesOf(() => gateway.findActionSupported(new Capture({}))), ['PAYWIREDEP007'])
  t.equal(capture.api, acme)
  t.equal(refund.api, acme, 'also an action that did not support the request')
})

t.test('addApi(api, true) puts the API first', async (t) => {
  const first = new AcmeApi()
  const gateway = new Gateway().addApi(new AcmeApi()).addApi(first, true)
  t.equal(gateway.apis[0], first)
  const action = new CaptureAction()
  gateway.addAction(action)
  await gateway.execute(new Capture({}))
  t.equal(action.api, first)
})

t.test('a hand-written ApiAwareInterface gets its API too', async (t) => {
  const given: unknown[] = []
  const action: Action & ApiAwareInterface = {
    setApi (api: unknown) { given.push(api) },
    supports: (request: unknown) => request instanceof Capture,
    execute () {}
  }
  const api = new OtherApi()
  await new Gateway().addAction(action).addApi(api).execute(new Capture({}))
  t.same(given, [api])
})

t.test('when no API fits, the lookup fails with the action named', async (t) => {
  const gateway = new Gateway().addAction(new CaptureAction()).addApi(new OtherApi())
  await t.rejects(gateway.execute(new Capture({})), {
    code: 'PAYWIRE_ERR_API_NOT_FOUND',
    message: /action CaptureAction: it needs an instance of AcmeApi and the gateway has only an instance of OtherApi/
  })
})

t.test('a gateway without APIs never calls setApi (the 2.0 lookup is untouched)', async (t) => {
  let calls = 0
  const action: Action & ApiAwareInterface = {
    setApi () { calls++ },
    supports: (request: unknown) => request instanceof Capture,
    execute () {}
  }
  const gateway = new Gateway().addAction(action)
  await gateway.execute(new Capture({}))
  t.equal(calls, 0)
  t.same(gateway.apis, [])
  t.equal(gateway.findActionSupported(new Capture({})), action)
})
