import t from 'tap'
import { GetToken, GetTokenAction, MemoryTokenStorage, Token } from '../../../../../../plugins/core/engine/index.ts'

t.test('loads the token with the given hash', async (t) => {
  const storage = new MemoryTokenStorage()
  const token = new Token()
  await storage.save([token])
  const action = new GetTokenAction(storage)
  const request = new GetToken(token.hash)
  t.ok(action.supports(request))
  t.notOk(action.supports({ hash: token.hash }))
  t.equal(request.token, undefined)
  await action.execute(request)
  t.same(request.token, token)
})

t.test('an unknown hash is a coded 404 error', async (t) => {
  const action = new GetTokenAction(new MemoryTokenStorage())
  await t.rejects(action.execute(new GetToken('unknown')), { code: 'PAYWIRE_ERR_GET_TOKEN_NOT_FOUND', statusCode: 404 })
})
