import t from 'tap'
import { generateLockId, generateTokenHash } from '../../../../../plugins/core/engine/security/random.ts'

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
