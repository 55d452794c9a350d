import t from 'tap'
import { StatusAction } from '../../../../gateways/offline/index.ts'
import { ArrayObject, Capture, GetBinaryStatus, GetHumanStatus, Identity, Payment } from '../../../../plugins/core/engine/index.ts'

t.test('supports status requests on offline details', async (t) => {
  const action = new StatusAction()
  t.ok(action.supports(new GetHumanStatus(new ArrayObject())))
  t.ok(action.supports(new GetBinaryStatus({})))
  // A Payment reads through its details, the way commits read it for payment events.
  t.ok(action.supports(new GetHumanStatus(new Payment())))
  t.notOk(action.supports(new GetHumanStatus(new Identity('Payment', '1'))), 'an identity not loaded yet is no record')
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

t.test('the status carries the amounts: captured, then what was refunded', async (t) => {
  const status = new GetHumanStatus(new ArrayObject({ amount: 1999, status: 'refunded', refunded_amount: 500 }))
  new StatusAction().execute(status)
  t.equal(status.value, 'refunded')
  t.same(status.amounts, { captured: 1999, refunded: 500, reversed: 0 })
})
