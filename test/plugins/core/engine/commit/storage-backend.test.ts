import t from 'tap'
import {
  MemoryStorage, MemoryStorageBackend, MemoryTokenStorage, Payment, StorageBackend, Token
} from '../../../../../plugins/core/engine/index.ts'
import { manualClock } from '../../../../helpers/engine.ts'

t.test('the memory backend makes memory storages and a memory token storage with its options', async (t) => {
  const clock = manualClock()
  const backend = new MemoryStorageBackend({ ttl: { capture: 1 }, now: clock.now })
  t.ok(backend instanceof StorageBackend)
  const storage = backend.createStorage(Payment, { modelName: 'Order' })
  t.ok(storage instanceof MemoryStorage)
  t.equal(storage.modelName, 'Order')
  const tokens = backend.createTokenStorage()
  t.ok(tokens instanceof MemoryTokenStorage)
  const token = new Token()
  await tokens.save([token])
  clock.advance(1000)
  t.equal(await tokens.find(token.hash), null, 'the ttl option reached the token storage')
  t.not(backend.createTokenStorage(), tokens, 'a new token storage each time')
  t.ok(new MemoryStorageBackend().createTokenStorage() instanceof MemoryTokenStorage)
})
