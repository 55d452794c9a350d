import { PAYWIRE_ERR_RECORD_NOT_STORABLE } from '../errors.ts'

/** Deeper records are refused: no payment needs them, and some backends' JSON parsers stop there. */
export const MAX_RECORD_DEPTH = 32

/**
 * Refuses, before anything is written, what not every storage keeps as given: strings with
 * NUL characters (PostgreSQL's jsonb refuses them) or lone UTF-16 surrogates (not valid
 * Unicode: PostgreSQL refuses them, JSON.stringify escapes them), numbers JSON cannot hold
 * (NaN and Infinity would silently become null), and nesting beyond MAX_RECORD_DEPTH. The
 * same rules on every storage, so memory, Redis and PostgreSQL accept and refuse the same
 * records. The message names the path, never the value.
 */
export function assertStorable (record: Record<string, unknown>, modelName: string): void {
  if (storable(record, 0)) return
  const problem = findProblem(record, '', 0)
  if (problem !== undefined) throw new PAYWIRE_ERR_RECORD_NOT_STORABLE(modelName, problem)
}

/**
 * findProblem() without the paths: on every write, of records that are nearly always fine, the
 * path of each field was a string made for nothing. A record it refuses is walked again for the message.
 */
function storable (value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return !badString(value)
    case 'number':
      return Number.isFinite(value)
    case 'object': {
      if (value === null) return true
      if (depth >= MAX_RECORD_DEPTH) return false
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          if (!storable(value[index], depth + 1)) return false
        }
        return true
      }
      // Walked as they serialize; findProblem() says which such value, when one is refused.
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
      for (const key in value) {
        if (badString(key) || !storable((value as Record<string, unknown>)[key], depth + 1)) return false
      }
      return true
    }
    default:
      return true
  }
}

function findProblem (value: unknown, path: string, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return badString(value) ? `${where(path)} holds a NUL character or an unpaired surrogate` : undefined
    case 'number':
      return Number.isFinite(value) ? undefined : `${where(path)} is ${String(value)}, which JSON cannot hold`
    case 'object': {
      if (value === null) return undefined
      if (depth >= MAX_RECORD_DEPTH) return `${where(path)} is nested deeper than ${MAX_RECORD_DEPTH} levels`
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const problem = findProblem(value[index], `${path}[${index}]`, depth + 1)
          if (problem !== undefined) return problem
        }
        return undefined
      }
      // Objects with toJSON (dates) are stored as what they serialize to.
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return findProblem(JSON.parse(JSON.stringify(value)), path, depth)
      for (const key in value) {
        if (badString(key)) return `a key under ${where(path)} holds a NUL character or an unpaired surrogate`
        const problem = findProblem((value as Record<string, unknown>)[key], path === '' ? key : `${path}.${key}`, depth + 1)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    default:
      return undefined
  }
}

/** String.prototype.isWellFormed (ES2024, in every Node the package supports; the compiler's lib is ES2023). */
type WellFormable = string & { isWellFormed (): boolean }

/** True when every storage keeps the text as given (no NUL, no unpaired surrogate): ids and criteria outside records. */
export function isStorableText (text: string): boolean {
  return !badString(text)
}

function badString (text: string): boolean {
  // isWellFormed(): no high surrogate without a low one after it, no low one without a high one before it.
  // A native scan: the lookaround regex it replaces was an eighth of the check of a record.
  return text.includes('\u0000') || !(text as WellFormable).isWellFormed()
}

function where (path: string): string {
  return path === '' ? 'the record' : `"${path}"`
}
