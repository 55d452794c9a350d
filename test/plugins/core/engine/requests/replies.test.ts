import t from 'tap'
import { HttpPostRedirect, HttpRedirect, HttpResponse, Reply, escapeHtml } from '../../../../../plugins/core/engine/index.ts'

t.test('HttpResponse defaults to 200 with no headers; replies are not Errors', async (t) => {
  const response = new HttpResponse('<p>hello</p>')
  t.equal(response.content, '<p>hello</p>')
  t.equal(response.statusCode, 200)
  t.same(response.headers, {})
  t.ok(response instanceof Reply)
  t.notOk(response instanceof Error)
  t.equal(Object.prototype.toString.call(response), '[object HttpResponse]')
  const custom = new HttpResponse('gone', 410, { 'cache-control': 'no-store' })
  t.equal(custom.statusCode, 410)
  t.same(custom.headers, { 'cache-control': 'no-store' })
})

t.test('HttpRedirect: Location header, 302, and a meta-refresh page with the URL HTML-escaped', async (t) => {
  const url = 'https://psp.example/pay?a=1&b="2"<x>\'y\''
  const redirect = new HttpRedirect(url)
  t.ok(redirect instanceof HttpResponse)
  t.equal(redirect.url, url)
  t.equal(redirect.statusCode, 302)
  t.equal(redirect.headers.location, url, 'the header carries the raw URL')
  const escaped = 'https://psp.example/pay?a=1&amp;b=&quot;2&quot;&lt;x&gt;&#39;y&#39;'
  t.match(redirect.content, `<meta http-equiv="refresh" content="0;url=${escaped}">`)
  t.match(redirect.content, `<a href="${escaped}">${escaped}</a>`)
  t.notMatch(redirect.content, '<x>')

  const moved = new HttpRedirect('https://shop.example/', 303, { 'x-trace': '1' })
  t.equal(moved.statusCode, 303)
  t.same(moved.headers, { 'x-trace': '1', location: 'https://shop.example/' })
})

t.test('HttpRedirect to an empty URL is a coded error', async (t) => {
  t.throws(() => new HttpRedirect(''), { code: 'PAYWIRE_ERR_REDIRECT_URL_EMPTY', message: 'Cannot redirect to an empty URL.' })
})

t.test('HttpPostRedirect: an auto-submitting form with escaped action and hidden fields', async (t) => {
  const reply = new HttpPostRedirect('https://acs.example/3ds?a=1&b=2', { PaReq: 'a"b<c>', 'MD&': 'x\'y' })
  t.ok(reply instanceof HttpResponse)
  t.equal(reply.statusCode, 200)
  t.equal(reply.url, 'https://acs.example/3ds?a=1&b=2')
  t.same(reply.fields, { PaReq: 'a"b<c>', 'MD&': 'x\'y' })
  t.same(reply.headers, { 'content-type': 'text/html; charset=utf-8' })
  t.match(reply.content, '<body onload="document.forms[0].submit()">')
  t.match(reply.content, '<form action="https://acs.example/3ds?a=1&amp;b=2" method="post">')
  t.match(reply.content, '<input type="hidden" name="PaReq" value="a&quot;b&lt;c&gt;">')
  t.match(reply.content, '<input type="hidden" name="MD&amp;" value="x&#39;y">')
  t.match(reply.content, '<noscript><button type="submit">Continue</button></noscript>')

  const bare = new HttpPostRedirect('https://acs.example', {}, 201, { 'content-type': 'text/html', 'x-a': 'b' })
  t.equal(bare.statusCode, 201)
  t.same(bare.headers, { 'content-type': 'text/html', 'x-a': 'b' })
  t.notMatch(bare.content, '<input')
  t.same(new HttpPostRedirect('https://acs.example').fields, {})
})

t.test('escapeHtml escapes the five HTML-special characters and stringifies values', async (t) => {
  t.equal(escapeHtml('&<>"\''), '&amp;&lt;&gt;&quot;&#39;')
  t.equal(escapeHtml(12), '12')
  t.equal(escapeHtml('plain'), 'plain')
})
