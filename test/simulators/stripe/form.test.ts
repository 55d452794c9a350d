import t from 'tap'
import { FormSyntaxError, parseForm } from '../../../simulators/stripe/form.ts'

/* Stripe's nested-bracket form encoding, as the official SDKs send it. */

t.test('nested objects, lists and indexed lists', async (t) => {
  t.same(parseForm('a=1&metadata[order]=42&metadata[note]=hi%20there'), { a: '1', metadata: { order: '42', note: 'hi there' } })
  t.same(parseForm('expand[]=latest_charge&expand[]=customer'), { expand: ['latest_charge', 'customer'] })
  t.same(parseForm('line_items[1][quantity]=2&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur'),
    { line_items: [{ quantity: '1', price_data: { currency: 'eur' } }, { quantity: '2' }] }, 'indices order the list, not arrival')
  t.same(parseForm('types[0]=a&types[2]=c'), { types: ['a', 'c'] }, 'gaps close up')
  t.same(parseForm('a[b][][c]=1&a[b][][c]=2'), { a: { b: [{ c: '1' }, { c: '2' }] } })
  t.same(parseForm('x[0][]=1&x[0][]=2'), { x: [['1', '2']] })
  t.same(parseForm(''), {})
})

t.test('malformed keys are refused with the key', async (t) => {
  for (const text of ['a[b=1', '[a]=1', 'a]b[=1', 'a=1&a[b]=2', 'a[b]=1&a=2', 'a[]=1&a[x]=2', 'a[0]=1&a[0][b]=2', 'a[x][]=1&a[x][y]=2', 'a[b]=1&a[]=2']) {
    t.throws(() => parseForm(text), FormSyntaxError, text)
  }
  const error = (() => { try { parseForm('metadata[a=1') } catch (caught) { return caught as FormSyntaxError } })()
  t.equal(error?.key, 'metadata[a')
})
