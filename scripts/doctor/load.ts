import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { errorCodes, type Paywire } from '../../plugins/core/engine/index.ts'

export interface LoadedPaywire {
  paywire: Paywire
  /** Releases what loading started: the Paywire built from a builder, the Fastify app. */
  close: () => Promise<void>
}

const EXPORT_NAMES = ['default', 'paywire', 'builder', 'app']

interface FastifyLike {
  ready: () => PromiseLike<unknown>
  close: () => PromiseLike<unknown>
  register: unknown
  paywire?: unknown
}

function isBuilder (value: unknown): value is { getPaywire: () => Paywire } {
  return typeof (value as { getPaywire?: unknown } | null)?.getPaywire === 'function'
}

// Duck-typed, so an application resolving its own copy of Paywire is still recognised.
function isPaywire (value: unknown): value is Paywire {
  const candidate = value as Partial<Paywire> | null
  return typeof candidate?.getGatewayNames === 'function' && typeof candidate.getGateway === 'function'
}

function isFastify (value: unknown): value is FastifyLike {
  const candidate = value as Partial<FastifyLike> | null
  return typeof candidate?.ready === 'function' && typeof candidate.close === 'function' && typeof candidate.register === 'function'
}

/**
 * Loads an application's Paywire setup from `<module>[#export]`: a PaywireBuilder, a
 * Paywire, a Fastify app decorated by the paywire plugin, or a function returning one of
 * those (sync or async), exported as `export` or else as default, paywire, builder or app.
 */
export async function loadPaywire (specifier: string, cwd = process.cwd()): Promise<LoadedPaywire> {
  const hash = specifier.lastIndexOf('#')
  const file = hash === -1 ? specifier : specifier.slice(0, hash)
  const names = hash === -1 ? EXPORT_NAMES : [specifier.slice(hash + 1)]
  const module = await import(pathToFileURL(resolve(cwd, file)).href) as Record<string, unknown>
  const name = names.find((candidate) => module[candidate] !== undefined)
  const setup = await fromValue(name === undefined ? undefined : module[name], true)
  if (setup === undefined) throw new errorCodes.PAYWIRE_ERR_DOCTOR_NO_SETUP(specifier, names.join(', '))
  return setup
}

async function fromValue (value: unknown, mayCall: boolean): Promise<LoadedPaywire | undefined> {
  if (isBuilder(value)) {
    const paywire = value.getPaywire()
    return { paywire, close: () => paywire.close() }
  }
  if (isPaywire(value)) return { paywire: value, close: () => value.close() }
  if (isFastify(value)) {
    await value.ready()
    const paywire = value.paywire
    if (!isPaywire(paywire)) {
      await value.close()
      return undefined
    }
    return { paywire, close: async () => { await value.close() } }
  }
  if (typeof value === 'function' && mayCall) return await fromValue(await value(), false)
  return undefined
}
