import t from 'tap'
import { isPlainAbsoluteUrl, samePath } from '../../../../../plugins/core/engine/security/url-paths.ts'

/** What samePath() answered before its shortcut for plain paths: every URL parsed, both paths decoded. */
function parsedAndDecoded (requestUrl: string, targetUrl: string): boolean {
  const decoded = (url: string) => {
    try {
      return decodeURIComponent(new URL(url, 'http://paywire.invalid').pathname)
    } catch {
      return undefined
    }
  }
  const requestPath = decoded(requestUrl)
  return requestPath !== undefined && requestPath === decoded(targetUrl)
}

/** A seeded generator (mulberry32), so a failure names a case that can be run again. */
function random (seed: number): () => number {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const ORIGINS = ['', '', '', 'https://shop.example', 'http://shop.example', 'https://shop.example:8443', 'https://shop.example:443',
  'HTTPS://Shop.Example', 'https://user:pw@shop.example', 'https://1.2.3.999', 'https://exa mple', 'https://', 'https:',
  'https://shop.example?', 'https://shop.example#', 'https://shop.exa\tmple', 'http://[::1]', 'http://xn--nxasmq6b.example', '//shop.example', ' ']
const PIECES = ['/', '/', '/', 'payment', 'capture', 'done', 'abcDEF_-012', '.', '..', '%', '%2e', '%2E', '%2F', '%7E', '~', '%C3%A9',
  '%E0%A4%A', '%zz', 'é', ' ', '\t', '\n', '\\', '?', '#', '?x=1', '#top', '//', ':', '@', ';', '=', '!$&\'()*+,', '"', '<', '`', '{', '^', '|']

t.test('answers as parsing both URLs and decoding their paths does, on URLs made of tricky pieces', async (t) => {
  const next = random(23)
  const pick = <T> (items: readonly T[]) => items[Math.floor(next() * items.length)] as T
  const pathOf = () => Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(PIECES)).join('')
  let mismatches = 0
  let matches = 0
  for (let i = 0; i < 30_000; i++) {
    const path = pathOf()
    // Half the pairs share their path text, so the cases that match are many too.
    const request = pick(ORIGINS) + path
    const target = pick(ORIGINS) + (next() < 0.5 ? path : pathOf())
    const expected = parsedAndDecoded(request, target)
    if (expected) matches++
    if (samePath(request, target) !== expected) {
      mismatches++
      if (mismatches <= 10) t.fail(`${JSON.stringify(request)} vs ${JSON.stringify(target)}: expected ${String(expected)}`)
    }
  }
  t.equal(mismatches, 0)
  t.ok(matches > 3000, `${matches} pairs matched`)
})

t.test('the token routes\' own URLs, plain and otherwise', async (t) => {
  const target = 'https://shop.example/payment/capture/AbCdEfGh_abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG'
  const cases: Array<[request: string, target: string, matches: boolean]> = [
    ['/payment/capture/AbCdEfGh_abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG', target, true],
    ['/payment/capture/AbCdEfGh_abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG?PayerID=1', target, true],
    ['/payment/capture/AbCdEfGh_abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG#x', `${target}?a=1`, true],
    ['/payment/capture/AbCdEfGh_abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG/', target, false],
    ['/payment/done/AbCdEfGh_abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG', target, false],
    ['/payment/capture', 'https://shop.example/payment/capture?paywire_token=abc', true],
    ['/payment/capture?paywire_token=abc', 'https://shop.example/payment/capture?paywire_token=abc', true],
    ['/payment/capture', 'https://shop.example:443/payment/capture', true],
    ['/payment/capture', 'https://shop.example:44x/payment/capture', false],
    ['/payment/.well-known', 'https://shop.example/payment/.well-known', true],
    ['/payment/capture', 'https://shop.example/payment/capture/..', false],
    ['//payment/capture', 'https://shop.example/capture', true]
  ]
  for (const [request, target, matches] of cases) {
    t.equal(samePath(request, target), matches, `${request} vs ${target}`)
    t.equal(parsedAndDecoded(request, target), matches, 'as the parser reads them')
  }
})

t.test('a plain absolute URL is one the URL parser writes back unchanged, without a query or fragment', async (t) => {
  const next = random(42)
  const pick = <T> (items: readonly T[]) => items[Math.floor(next() * items.length)] as T
  let plain = 0
  for (let i = 0; i < 20_000; i++) {
    const url = pick(ORIGINS) + Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(PIECES)).join('')
    let unchanged = false
    try {
      unchanged = new URL(url).href === url && !url.includes('?') && !url.includes('#')
    } catch {
      // Not a URL: not a plain one either.
    }
    if (isPlainAbsoluteUrl(url)) plain++
    if (isPlainAbsoluteUrl(url) && !unchanged) t.fail(`${JSON.stringify(url)} is taken as plain, but the parser writes it otherwise`)
  }
  t.ok(plain > 100, `${plain} plain URLs`)
  t.equal(isPlainAbsoluteUrl('https://shop.example/payment/done/AbCdEfGh_x-y'), true)
  t.equal(isPlainAbsoluteUrl('/payment/done/AbCdEfGh_x-y'), false, 'a path alone is not absolute')
  t.equal(isPlainAbsoluteUrl('https://shop.example/payment/done?x=1'), false)
})
