import t from 'tap'
import { assertStorable, MAX_RECORD_DEPTH, storableJson } from '../../../../../plugins/core/engine/storage/storable.ts'

/** The message assertStorable() refuses the record with; storableJson() must refuse it alike, or give its JSON. */
function refusal (record: Record<string, unknown>): string | undefined {
  let message: string | undefined
  try {
    assertStorable(record, 'Payment')
  } catch (error) {
    message = (error as Error).message
  }
  try {
    if (storableJson(record, 'Payment') !== JSON.stringify(record)) return 'storableJson: not the record\'s JSON'
    return message === undefined ? undefined : 'storableJson: accepted'
  } catch (error) {
    return (error as Error).message === message ? message : `storableJson: ${(error as Error).message}`
  }
}

function nested (levels: number, leaf: unknown): Record<string, unknown> {
  let value: unknown = leaf
  for (let level = 0; level < levels; level++) value = { next: value }
  return value as Record<string, unknown>
}

t.test('records every storage keeps are accepted: paired surrogates, dates, inherited and nested fields', async (t) => {
  t.equal(refusal({ a: 'emoji 💶', b: 1, c: null, d: [1, 'x', { e: true }], f: undefined, g: new Date(0) }), undefined)
  t.equal(refusal(nested(MAX_RECORD_DEPTH - 1, { last: 'object' })), undefined)
  t.equal(refusal({ when: { toJSON: () => 'fine' } }), undefined)
})

t.test('the first refused value is named by its path, the same wherever it is', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ a: 'x', b: 'a\u0000b' }, '"b" holds a NUL character or an unpaired surrogate'],
    [{ details: { local: { note: 'cut \uD83D' } } }, '"details.local.note" holds a NUL character or an unpaired surrogate'],
    [{ list: [1, 2, { low: '\uDE00' }] }, '"list[2].low" holds a NUL character or an unpaired surrogate'],
    [{ list: [[1, Number.NaN]] }, '"list[0][1]" is NaN, which JSON cannot hold'],
    [{ amount: Number.POSITIVE_INFINITY }, '"amount" is Infinity, which JSON cannot hold'],
    [{ details: { '\uDE00': 1 } }, 'a key under "details" holds a NUL character or an unpaired surrogate'],
    [{ 'a\u0000': 1 }, 'a key under the record holds a NUL character or an unpaired surrogate'],
    [{ '': { x: Number.NaN } }, '"x" is NaN, which JSON cannot hold'],
    [{ when: { toJSON: () => ({ inner: 'a\u0000' }) } }, '"when.inner" holds a NUL character or an unpaired surrogate'],
    [{ first: Number.NaN, second: 'a\u0000' }, '"first" is NaN, which JSON cannot hold'],
    [nested(MAX_RECORD_DEPTH + 1, 1), `"${Array(MAX_RECORD_DEPTH).fill('next').join('.')}" is nested deeper than ${MAX_RECORD_DEPTH} levels`]
  ]
  for (const [record, message] of cases) t.match(refusal(record), message)
})

t.test('inherited enumerable fields are checked as for…in reads them', async (t) => {
  const record = Object.create({ inherited: 'a\u0000' }) as Record<string, unknown>
  record.own = 'fine'
  t.match(refusal(record), '"inherited" holds a NUL character')
})

t.test('storableJson: texts checked in the JSON as in the record, whatever JSON leaves out or escapes', async (t) => {
  t.equal(refusal({ text: 'a backslash and u: \\u0041, a control character: \u0001' }), undefined, 'other escapes are no refusal')
  t.match(refusal({ fine: 'x', '\uD800': undefined }), 'a key under the record holds', 'the key of a field JSON leaves out')
  t.match(refusal({ '\u0000': () => 1 }), 'a key under the record holds', 'the key of a function')
  t.match(refusal({ big: 1n, text: 'a\u0000' }), '"text" holds a NUL', 'refused before an encoding that throws')
  t.throws(() => storableJson({ big: 1n }, 'Payment'), TypeError, 'a record JSON cannot encode is its error')
  t.throws(() => storableJson({ bad: Number.NaN, big: 1n }, 'Payment'), { code: 'PAYWIRE_ERR_RECORD_NOT_STORABLE' })
  t.equal(storableJson({ when: new Date(0), list: [{ a: 'b' }] }, 'Payment'), '{"when":"1970-01-01T00:00:00.000Z","list":[{"a":"b"}]}')
})
