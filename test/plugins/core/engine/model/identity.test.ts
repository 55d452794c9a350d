import t from 'tap'
import { Identity } from '../../../../../plugins/core/engine/index.ts'

t.test('points at a stored model by id and model name', async (t) => {
  const identity = new Identity('p-1', 'Payment')
  t.equal(identity.id, 'p-1')
  t.equal(identity.modelName, 'Payment')
  t.equal(String(identity), 'Payment#p-1')
  t.same(JSON.parse(JSON.stringify(identity)), { id: 'p-1', modelName: 'Payment' })
})
