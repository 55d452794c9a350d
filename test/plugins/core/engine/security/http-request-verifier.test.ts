import t from 'tap'
import { HttpRequestVerifier, MemoryTokenStorage, Token } from '../../../../../plugins/core/engine/index.ts'

/** Counts find() calls, to show malformed hashes never reach the store. */
class CountingTokenStorage extends MemoryTokenStorage {
  finds = 0

  override async find (hash: string): Promise<Token | null> {
    this.finds++
    return await super.find(hash)
  }
}

async function setup (targetUrl = 'https://shop.example/payment/capture') {
  const tokenStorage = new CountingTokenStorage()
  const token = new Token()
  token.targetUrl = `${targetUrl}?paywire_token=${token.hash}`
  await tokenStorage.save([token])
  return { verifier: new HttpRequestVerifier(tokenStorage), tokenStorage, token }
}

t.test('finds the token in the route params, the query or the body', async (t) => {
  const { verifier, token } = await setup()
  const url = '/payment/capture'
  const sources = [
    { url, params: { token: token.hash } },
    { url, params: { paywire_token: token.hash } },
    { url, query: { paywire_token: token.hash } },
    { url, body: { paywire_token: token.hash } }
  ]
  for (const request of sources) t.same(await verifier.verify(request), token, Object.keys(request).join('+'))
  t.same(await verifier.verify({ url, params: { token: token.hash }, query: { paywire_token: 'other-but-ignored-value' } }), token,
    'the route parameter comes first')
  t.same(await verifier.verify({ url, query: { paywire_token: '' }, body: { paywire_token: token.hash } }), token, 'empty values are skipped')
})

t.test('a request without a token is a 400 naming the parameter', async (t) => {
  const { verifier } = await setup()
  for (const request of [{ url: '/x' }, { url: '/x', query: { paywire_token: '' } }, { url: '/x', body: 'paywire_token=abc' }, { url: '/x', query: { paywire_token: ['a'] } }]) {
    await t.rejects(verifier.verify(request), {
      code: 'PAYWIRE_ERR_TOKEN_PARAMETER_MISSING',
      statusCode: 400,
      message: /field "paywire_token"/
    })
  }
  const custom = new HttpRequestVerifier(new MemoryTokenStorage(), 'payum_token')
  t.equal(custom.tokenParameter, 'payum_token')
  await t.rejects(custom.verify({ url: '/x', query: { paywire_token: 'abc' } }), { message: /field "payum_token"/ })
})

t.test('an unknown or malformed token is a 404; malformed ones never reach the store', async (t) => {
  const { verifier, tokenStorage } = await setup()
  await t.rejects(verifier.verify({ url: '/payment/capture', query: { paywire_token: 'A'.repeat(43) } }), {
    code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND', statusCode: 404
  })
  t.equal(tokenStorage.finds, 1)
  for (const malformed of ['short', 'has spaces in it, clearly', 'x'.repeat(129), '../../etc/passwd/and/more']) {
    await t.rejects(verifier.verify({ url: '/payment/capture', query: { paywire_token: malformed } }), { code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND' })
  }
  t.equal(tokenStorage.finds, 1)
})

t.test('only paths are compared: host, scheme and query may differ, another path is a 400', async (t) => {
  const { verifier, token } = await setup()
  const query = { paywire_token: token.hash }
  t.same(await verifier.verify({ url: 'http://internal:8080/payment/capture?PayerID=1', query }), token)
  t.same(await verifier.verify({ url: '/payment/capture', query }), token)
  for (const url of ['/payment/done', '/payment/capture/', '/other/payment/capture', '%E0%A4%A']) {
    await t.rejects(verifier.verify({ url, query }), { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH', statusCode: 400 }, url)
  }
})

t.test('URL-encoded paths compare decoded', async (t) => {
  const { verifier, token } = await setup('https://shop.example/paiement/caf%C3%A9/capture')
  const query = { paywire_token: token.hash }
  t.same(await verifier.verify({ url: '/paiement/café/capture', query }), token)
  t.same(await verifier.verify({ url: '/paiement/caf%C3%A9/capture', query }), token)
  t.same(await verifier.verify({ url: '/paiement/caf%c3%a9/capture', query }), token)
})

t.test('a Token passed directly is returned as is', async (t) => {
  const { verifier } = await setup()
  const token = new Token()
  t.equal(await verifier.verify(token), token)
})

t.test('verifyAndClaim() claims the token\'s payment: a concurrent claim is busy until the claim is released', async (t) => {
  const { verifier, tokenStorage, token } = await setup()
  const request = { url: '/payment/capture', query: { paywire_token: token.hash } }
  const claimed = await verifier.verifyAndClaim(request, 5000)
  t.same(claimed.token, token)
  await t.rejects(verifier.verifyAndClaim(request, 5000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY', statusCode: 409 })
  t.same(await verifier.verify(request), token, 'a plain verify does not claim')
  await tokenStorage.releaseClaim(claimed.claim)
  const again = await verifier.verifyAndClaim(request, 5000)
  await tokenStorage.releaseClaim(again.claim)
  t.equal(await verifier.invalidate(again.token), true)
  t.equal(await verifier.invalidate(again.token), false)
  await t.rejects(verifier.verify(request), { code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND' })
  await t.rejects(verifier.verifyAndClaim(request, 5000), { code: 'PAYWIRE_ERR_TOKEN_USED', statusCode: 410 })
})

t.test('a path mismatch releases the claim it took', async (t) => {
  const { verifier, token } = await setup()
  const query = { paywire_token: token.hash }
  await t.rejects(verifier.verifyAndClaim({ url: '/elsewhere', query }, 5000), { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH' })
  const claimed = await verifier.verifyAndClaim({ url: '/payment/capture', query }, 5000)
  t.same(claimed.token, token)
  await t.rejects(verifier.verify({ url: '/elsewhere', query }), { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH' })
  await t.rejects(verifier.verifyAndClaim({ url: '/payment/capture', query: {} }, 5000), { code: 'PAYWIRE_ERR_TOKEN_PARAMETER_MISSING' })
})

t.test('paths compare as a URL parser reads them: dot segments, backslashes, tabs and encoded characters are resolved first', async (t) => {
  const { verifier, token } = await setup()
  const query = { paywire_token: token.hash }
  const same = [
    '/payment/capture#fragment', '/payment/capture?PayerID=1#fragment', '/payment/capture?%', '/payment/./capture',
    '/payment/x/../capture', '/payment/%2e/capture', '/x/%2E%2E/payment/capture', '/payment\\capture', '/payment/cap\tture',
    '/payment%2Fcapture', '/payment/%63apture', 'payment/capture', ' /payment/capture', '//proxy.internal/payment/capture',
    'HTTP://internal/payment/capture', 'https://user:secret@internal:8443/payment/capture'
  ]
  for (const url of same) t.same(await verifier.verify({ url, query }), token, url)
  const other = ['/payment/capture%', '/payment/capture%zz', '/PAYMENT/capture', '', '/', '/payment/capture/.', '/payment//capture',
    'https://1.2.3.999/payment/capture', 'https://exa mple/payment/capture']
  for (const url of other) {
    await t.rejects(verifier.verify({ url, query }), { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH' }, JSON.stringify(url))
  }
})

t.test('a token\'s target URL is read the same way; one no URL parser reads matches no request', async (t) => {
  const cases: Array<[target: string, request: string, matches: boolean]> = [
    ['HTTPS://SHOP.example/payment/capture', '/payment/capture', true],
    ['https://shop.example:443/payment/capture', '/payment/capture', true],
    ['https://user:pw@shop.example:8443/payment/capture#top', '/payment/capture', true],
    ['https://shop.example/payment/%7Ecapture', '/payment/~capture', true],
    ['https://shop.example/payment/~capture', '/payment/%7Ecapture', true],
    ['https://shop.example/a/../payment/capture', '/payment/capture', true],
    ['https://shop.example/payment/capture', '/payment/capture/', false],
    ['/payment/capture', '/payment/capture', true],
    ['https://shop.example/payment/capture%', '/payment/capture%', false],
    ['https://exa mple/payment/capture', '/payment/capture', false],
    ['https://1.2.3.999/payment/capture', '/payment/capture', false],
    ['https:///payment/capture', '/payment/capture', false],
    ['https://shop.example?/payment/capture', '/payment/capture', false],
    ['https://shop.example\\payment/capture', '/payment/capture', true],
    ['https://shop.exa\tmple/payment/capture', '/payment/capture', true]
  ]
  for (const [target, request, matches] of cases) {
    const { verifier, token } = await setup(target)
    const attempt = verifier.verify({ url: request, query: { paywire_token: token.hash } })
    if (matches) t.same(await attempt, token, `${target} ~ ${request}`)
    else await t.rejects(attempt, { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH' }, `${target} !~ ${request}`)
  }
})
