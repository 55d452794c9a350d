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
 * JSON.stringify(record), for a record assertStorable() accepts (else its error, as when the
 * record is checked before it is encoded). Its texts are checked in the JSON: JSON.stringify
 * writes a NUL and a lone surrogate as "\u" escapes, so a JSON without one holds neither, and
 * one scan of it replaces a call per string (two thirds of the check of a Payment's record).
 */
export function storableJson (record: Record<string, unknown>, modelName: string): string {
  let json: string | undefined
  try {
    if (storable(record, 0, false)) json = JSON.stringify(record)
  } catch (error) {
    assertStorable(record, modelName)
    throw error
  }
  if (json !== undefined && !json.includes('\\u')) return json
  assertStorable(record, modelName)
  return json ?? JSON.stringify(record)
}

/**
 * findProblem() without the paths: on every write, of records that are nearly always fine, the
 * path of each field was a string made for nothing. A record it refuses is walked again for the message.
 * Without `texts`, the strings are left to the JSON (storableJson): only what it would not show is refused
 * here, an inherited field or the key of a field it leaves out.
 */
function storable (value: unknown, depth: number, texts = true): boolean {
  switch (typeof value) {
    case 'string':
      return !texts || !badString(value)
    case 'number':
      return Number.isFinite(value)
    case 'object': {
      if (value === null) return true
      if (depth >= MAX_RECORD_DEPTH) return false
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          if (!storable(value[index], depth + 1, texts)) return false
        }
        return true
      }
      // Walked as they serialize; findProblem() says which such value, when one is refused.
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
      for (const key in value) {
        const field = (value as Record<string, unknown>)[key]
        // What the JSON does not show (an inherited field, the key of a value it leaves out) is checked here, texts and all.
        const here = texts || !Object.hasOwn(value, key) || !shownInJson(field)
        if ((here && badString(key)) || !storable(field, depth + 1, here)) return false
      }
      return true
    }
    default:
      return true
  }
}

function shownInJson (field: unknown): boolean {
  return field !== undefined && typeof field !== 'function' && typeof field !== 'symbol'
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
