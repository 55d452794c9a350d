import t from 'tap'
import { Identity, Token, type TokenJSON } from '../../../../../plugins/core/engine/index.ts'

t.test('a new token gets a fresh 43-character base64url hash', async (t) => {
  const token = new Token()
  t.match(token.hash, /^[A-Za-z0-9_-]{43}$/)
  t.not(new Token().hash, token.hash)
  t.equal(new Token('given').hash, 'given')
  t.same({ ...token.toJSON(), hash: '' }, { hash: '', gatewayName: '', targetUrl: '', afterUrl: null, details: null, kind: 'capture' })
})

t.test('survives a JSON round trip, with its identity', async (t) => {
  const token = new Token()
  token.gatewayName = 'cash'
  token.targetUrl = 'https://shop.example/capture?paywire_token=x'
  token.afterUrl = 'https://shop.example/done?paywire_token=y'
  token.details = new Identity('p-1', 'Payment')
  token.kind = 'authorize'
  const json = JSON.parse(JSON.stringify(token)) as TokenJSON
  const revived = Token.fromJSON(json)
  t.ok(revived instanceof Token)
  t.ok(revived.details instanceof Identity)
  t.same(revived, token)
  t.same(revived.toJSON(), json)

  const notify = new Token()
  notify.kind = 'notify'
  const revivedNotify = Token.fromJSON(notify.toJSON())
  t.equal(revivedNotify.details, null)
  t.equal(revivedNotify.afterUrl, null)
  t.equal(revivedNotify.kind, 'notify')
})
