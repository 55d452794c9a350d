import t from 'tap'
import {
  BaseGetStatus, BinaryStatus, Generic, GetBinaryStatus, GetHumanStatus, HUMAN_STATUSES, HumanStatus, Payment, Token
} from '../../../../../plugins/core/engine/index.ts'

const NAMES = ['New', 'Captured', 'Authorized', 'Payedout', 'Refunded', 'Pending', 'Canceled', 'Failed', 'Suspended', 'Expired', 'Unknown'] as const
type Name = typeof NAMES[number]

function mark (status: BaseGetStatus<unknown>, name: Name): void {
  status[`mark${name}`]()
}

function matching (status: BaseGetStatus<unknown>): Name[] {
  return NAMES.filter((name) => status[`is${name}`]())
}

t.test('GetHumanStatus has the 11 statuses as strings and starts unknown', async (t) => {
  t.same([...HUMAN_STATUSES].sort(), [
    'authorized', 'canceled', 'captured', 'expired', 'failed', 'new', 'payedout', 'pending', 'refunded', 'suspended', 'unknown'
  ])
  const status = new GetHumanStatus(new Payment())
  t.equal(status.value, 'unknown')
  t.same(matching(status), ['Unknown'])
  t.ok(status instanceof BaseGetStatus)
  t.ok(status instanceof Generic)
})

t.test('GetHumanStatus: markX sets the value and only isX matches (strict equality)', async (t) => {
  for (const name of NAMES) {
    const status = new GetHumanStatus({})
    mark(status, name)
    t.equal(status.value, HumanStatus[name.toUpperCase() as keyof typeof HumanStatus], name)
    t.same(matching(status), [name], `${name} matches only itself`)
  }
})

t.test('GetBinaryStatus uses Payum\'s bit values and starts unknown', async (t) => {
  t.same(Object.entries(BinaryStatus), [
    ['PENDING', 1024], ['NEW', 2], ['CAPTURED', 4], ['AUTHORIZED', 8], ['REFUNDED', 16], ['CANCELED', 32],
    ['EXPIRED', 2 ** 18], ['SUSPENDED', 2 ** 19], ['FAILED', 2 ** 20], ['UNKNOWN', 2 ** 21], ['PAYEDOUT', 2 ** 22]
  ])
  const status = new GetBinaryStatus({})
  t.equal(status.value, 2 ** 21)
  t.same(matching(status), ['Unknown'])
})

t.test('GetBinaryStatus: markX sets the bit value and flags do not cross-match', async (t) => {
  for (const name of NAMES) {
    const status = new GetBinaryStatus({})
    mark(status, name)
    t.equal(status.value, BinaryStatus[name.toUpperCase() as keyof typeof BinaryStatus], name)
    t.same(matching(status), [name], `${name} matches only itself`)
  }
})

t.test('a status request on a token resolves firstModel like any Generic', async (t) => {
  const token = new Token()
  const status = new GetHumanStatus(token)
  t.equal(status.token, token)
  const payment = new Payment()
  status.model = payment
  t.equal(status.firstModel, payment)
})
