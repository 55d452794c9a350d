import { createHash } from 'node:crypto'
import t from 'tap'
import { affinityTag, generateLockId, generateTokenHash } from '../../../../plugins/core/engine/random.ts'

t.test('token hashes: 43 base64url characters, never repeated, also across pool refills', async (t) => {
  const hashes = new Set<string>()
  // 128 hashes fill one 4 KiB pool: 1,000 cross several refills.
  for (let i = 0; i < 1000; i++) {
    const hash = generateTokenHash()
    t.equal(hash.length, 43)
    hashes.add(hash)
  }
  t.ok([...hashes].every((hash) => /^[\w-]{43}$/.test(hash)))
  t.equal(hashes.size, 1000)
})

t.test('lock ids: 16 base64url characters, never repeated, interleaved with hashes', async (t) => {
  const ids = new Set<string>()
  for (let i = 0; i < 1000; i++) {
    ids.add(generateLockId())
    generateTokenHash()
  }
  t.ok([...ids].every((id) => /^[\w-]{16}$/.test(id)))
  t.equal(ids.size, 1000)
})

t.test('affinity tags: the first 8 base64url characters of SHA-256 over model and id, the same after the recent ones were evicted', async (t) => {
  // Stored keys and token hashes carry the tag: it may never change for an identity.
  const expected = (id: string) => createHash('sha256').update(`Payment\n${id}`).digest('base64url').slice(0, 8)
  t.equal(affinityTag('Payment', 'first'), expected('first'))
  t.equal(affinityTag('Payment', 'first'), expected('first'), 'again, as kept')
  t.not(affinityTag('Refund', 'first'), affinityTag('Payment', 'first'), 'the model name is part of it')
  for (let i = 0; i < 5000; i++) affinityTag('Payment', `other-${i}`)
  t.equal(affinityTag('Payment', 'first'), expected('first'), 'computed again once no longer kept')
  t.equal(affinityTag('Payment', 'other-4999'), expected('other-4999'))
})

t.test('affinity tags: right for many model names, those seen before them computed again once no longer kept', async (t) => {
  const expected = (name: string, id: string) => createHash('sha256').update(`${name}\n${id}`).digest('base64url').slice(0, 8)
  t.equal(affinityTag('Payment', 'kept'), expected('Payment', 'kept'))
  for (let i = 0; i < 100; i++) t.equal(affinityTag(`Model${i}`, 'kept'), expected(`Model${i}`, 'kept'))
  t.equal(affinityTag('Payment', 'kept'), expected('Payment', 'kept'), 'after the names kept were started afresh')
  // The tag hashes name and id joined by a newline: where the newline falls does not matter, as before.
  t.equal(affinityTag('a\nb', 'c'), affinityTag('a', 'b\nc'))
})
