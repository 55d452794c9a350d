import t from 'tap'
import { FORWARD_TRANSITIONS, HUMAN_STATUSES, StatusTransitions } from '../../../../../plugins/core/engine/index.ts'

const transitions = new StatusTransitions()

t.test('statuses only move forward', async (t) => {
  for (const status of HUMAN_STATUSES) t.ok(transitions.allows(status, status), `${status} may stay`)
  t.ok(transitions.allows('new', 'pending'))
  t.ok(transitions.allows('pending', 'captured'))
  t.ok(transitions.allows('authorized', 'captured'))
  t.ok(transitions.allows('captured', 'refunded'), 'a refund or a reversal')
  t.ok(transitions.allows('captured', 'suspended'), 'a dispute')
  t.ok(transitions.allows('suspended', 'captured'), 'a dispute won')
  t.ok(transitions.allows('refunded', 'suspended'), 'a partly refunded payment disputed')
  t.ok(transitions.allows('suspended', 'refunded'), 'and the dispute ended')
  t.notOk(transitions.allows('refunded', 'pending'))
  t.notOk(transitions.allows('captured', 'pending'))
  t.notOk(transitions.allows('refunded', 'captured'))
  for (const end of ['canceled', 'expired', 'failed'] as const) {
    t.notOk(transitions.allows(end, 'pending'), `${end} never becomes pending again`)
    t.notOk(transitions.allows(end, 'new'))
  }
  for (const known of HUMAN_STATUSES.filter((status) => status !== 'new' && status !== 'unknown')) {
    t.notOk(transitions.allows(known, 'unknown'), `${known} never becomes unknown`)
  }
})

t.test('decide(): forward moves apply, money moved after a local end overrules it, anything else keeps the status', async (t) => {
  t.equal(transitions.decide('pending', 'captured'), 'apply')
  t.equal(transitions.decide('canceled', 'captured'), 'overrule', 'PayPal took the money after the shop canceled')
  t.equal(transitions.decide('expired', 'authorized'), 'overrule')
  t.equal(transitions.decide('failed', 'refunded'), 'overrule')
  t.equal(transitions.decide('canceled', 'pending'), 'keep', 'a stale view brings nothing back to life')
  t.equal(transitions.decide('captured', 'unknown'), 'keep')
  t.equal(transitions.decide('refunded', 'captured'), 'keep')
})

t.test('a gateway may bring its own table', async (t) => {
  const strict = new StatusTransitions({ ...FORWARD_TRANSITIONS, captured: [] })
  t.notOk(strict.allows('captured', 'refunded'))
  t.equal(strict.decide('captured', 'refunded'), 'keep')
  t.equal(transitions.table, FORWARD_TRANSITIONS)
})
