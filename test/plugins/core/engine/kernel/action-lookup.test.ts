/*
 * The gateway works out once per request class which actions could ever support it: an action
 * that turns a class down by its class alone is not asked about that class again; one whose
 * answer depends on the request's model is asked about every request, in the gateway's order.
 */
import t from 'tap'
import { ArrayObject, Capture, Gateway, Sync, type Action } from '../../../../../plugins/core/engine/index.ts'
import { FnAction } from '../../../../helpers/engine.ts'

t.test('an action that turns a class down by its class is asked once per class, not per request', async (t) => {
  const sync = new FnAction(Sync)
  const capture = new FnAction(Capture)
  const gateway = new Gateway().addAction(sync).addAction(capture)
  for (let i = 0; i < 5; i++) await gateway.execute(new Capture({}))
  t.equal(capture.runs.length, 5)
  t.equal(sync.supportsCalls, 1, 'Sync turned Capture down once: never asked again')
  for (let i = 0; i < 3; i++) await gateway.execute(new Sync({}))
  t.equal(sync.runs.length, 3)
  t.equal(capture.supportsCalls, 1 + 5, 'once for its class, then about each Capture; never about a Sync, answered before it')
})

t.test('an action whose answer depends on the model is asked about every request', async (t) => {
  let asked = 0
  const flagged: Action & { runs: number } = {
    runs: 0,
    supports (request) {
      asked++
      return request instanceof Capture && request.model instanceof ArrayObject && request.model.data.flag === true
    },
    execute () { this.runs++ }
  }
  const fallback = new FnAction(Capture)
  const gateway = new Gateway().addAction(flagged).addAction(fallback)
  await gateway.execute(new Capture({ flag: true }))
  await gateway.execute(new Capture({ flag: false }))
  await gateway.execute(new Capture({ flag: true }))
  t.equal(flagged.runs, 2)
  t.equal(fallback.runs.length, 1)
  t.ok(asked >= 3, 'asked about each request')
})

t.test('an action added later is consulted: the lists are worked out again', async (t) => {
  const gateway = new Gateway().addAction(new FnAction(Sync))
  await t.rejects(gateway.execute(new Capture({})), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED' })
  const capture = new FnAction(Capture)
  gateway.addAction(capture)
  await gateway.execute(new Capture({}))
  t.equal(capture.runs.length, 1)
})

t.test('an action whose supports() throws on the stand-in is asked about each request', async (t) => {
  const picky: Action & { runs: number } = {
    runs: 0,
    supports (request) {
      if (!(request instanceof Capture)) throw new Error('only captures, please')
      return true
    },
    execute () { this.runs++ }
  }
  const gateway = new Gateway().addAction(new FnAction(Sync)).addAction(picky)
  await gateway.execute(new Capture({}))
  t.equal(picky.runs, 1)
})

t.test('a request that is not an object is looked up among every action', async (t) => {
  const strings: Action = { supports: (request) => typeof request === 'string', execute: () => {} }
  const gateway = new Gateway().addAction(new FnAction(Sync)).addAction(strings)
  t.equal(gateway.findActionSupported('hello'), strings)
  t.throws(() => gateway.findActionSupported(null), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED' })
})
