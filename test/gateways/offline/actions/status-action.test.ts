import t from 'tap'
import { StatusAction } from '../../../../gateways/offline/index.ts'
import { ArrayObject, Capture, GetBinaryStatus, GetHumanStatus, Payment } from '../../../../plugins/core/engine/index.ts'

t.test('supports status requests on offline details', async (t) => {
  const action = new StatusAction()
  t.ok(action.supports(new GetHumanStatus(new ArrayObject())))
  t.ok(action.supports(new GetBinaryStatus({})))
  t.notOk(action.supports(new GetHumanStatus(new Payment())))
  t.notOk(action.supports(new Capture({})))
})

t.test('maps every offline status; no status is new, anything else unknown', async (t) => {
  const cases: Array<[unknown, string]> = [
    [undefined, 'new'], [null, 'new'], ['pending', 'pending'], ['authorized', 'authorized'], ['captured', 'captured'],
    ['payedout', 'payedout'], ['refunded', 'refunded'], ['canceled', 'canceled'], ['failed', 'unknown'], ['weird', 'unknown']
  ]
  for (const [value, expected] of cases) {
    const status = new GetHumanStatus(new ArrayObject(value === undefined ? {} : { status: value }))
    status.markFailed()
    new StatusAction().execute(status)
    t.equal(status.value, expected, String(value))
  }
  const binary = new GetBinaryStatus(new ArrayObject({ status: 'captured' }))
  new StatusAction().execute(binary)
  t.ok(binary.isCaptured())
})
