import t from 'tap'
import { PAYPAL_TEXT_LIMIT, cutText } from '../../../gateways/paypal-rest/text.ts'

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

t.test('text within the limit is kept as it is', async (t) => {
  t.equal(cutText('Mug'), 'Mug')
  t.equal(cutText('m'.repeat(PAYPAL_TEXT_LIMIT)), 'm'.repeat(PAYPAL_TEXT_LIMIT))
  t.equal(cutText('😀'.repeat(63) + 'x'), '😀'.repeat(63) + 'x', '127 UTF-16 units exactly')
})

t.test('a cut never splits a grapheme cluster, so never leaves a lone surrogate', async (t) => {
  for (const [cluster, name] of [
    ['😀', 'an emoji (a surrogate pair)'],
    ['👨‍👩‍👧', 'a family (a ZWJ sequence)'],
    ['🇫🇷', 'a flag (two regional indicators)'],
    ['👍🏽', 'an emoji with a skin tone'],
    ['e\u0301', 'a letter with a combining accent']
  ] as const) {
    for (let before = PAYPAL_TEXT_LIMIT - cluster.length - 2; before <= PAYPAL_TEXT_LIMIT; before++) {
      const text = 'a'.repeat(before) + cluster + 'tail'
      const cut = cutText(text)
      t.ok(cut.length <= PAYPAL_TEXT_LIMIT, `${name} after ${before}: within the limit`)
      t.notMatch(cut, LONE_SURROGATE)
      const fits = before + cluster.length <= PAYPAL_TEXT_LIMIT
      t.ok(fits ? cut.startsWith('a'.repeat(before) + cluster) : cut === 'a'.repeat(Math.min(before, PAYPAL_TEXT_LIMIT)),
        `${name} after ${before}: ${fits ? 'kept whole' : 'dropped whole'}`)
    }
  }
})

t.test('another limit can be given', async (t) => {
  t.equal(cutText('ab😀', 3), 'ab')
  t.equal(cutText('ab😀', 4), 'ab😀')
})
