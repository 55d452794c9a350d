import t from 'tap'
import { hashTag, idsKey, indexPrefix, recordKey } from '../../../plugins/redis/keys.ts'

t.test('hashTag follows Redis: the first non-empty {…}, else the whole key', async (t) => {
  t.equal(hashTag('p:{abc}:model:Payment:1'), 'abc')
  t.equal(hashTag('p:ids:{Payment}'), 'Payment')
  t.equal(hashTag('{shop}:ids:{Payment}'), 'shop', 'a tag in the prefix wins: every key in one slot')
  t.equal(hashTag('p:{}:x{y}'), 'p:{}:x{y}', 'an empty first tag: the whole key is hashed')
  t.equal(hashTag('p:{open'), 'p:{open')
  t.equal(hashTag('plain'), 'plain')
})

t.test('a model\'s list and indexes share its tag; its records have their own', async (t) => {
  t.equal(hashTag(idsKey('p:', 'Payment')), 'Payment')
  t.equal(hashTag(`${indexPrefix('p:', 'Payment')}number:A-1`), 'Payment')
  t.not(hashTag(recordKey('p:', 'Payment', 'id-1')), 'Payment')
})
