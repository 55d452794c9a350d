import t from 'tap'
import { assertStorable, MAX_RECORD_DEPTH } from '../../../../../plugins/core/engine/storage/storable.ts'

function refusal (record: Record<string, unknown>): string | undefined {
  try {
    assertStorable(record, 'Payment')
    return undefined
  } catch (error) {
    return (error as Error).message
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
