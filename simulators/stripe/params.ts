import { invalidParam, invalidRequest, missingParam, unknownParam } from './errors.ts'
import type { FormObject, FormValue } from './form.ts'

/*
 * Reading form parameters the way Stripe checks them (https://docs.stripe.com/api/errors):
 * unknown names are `parameter_unknown`, missing ones `parameter_missing`, integers that do not
 * parse `parameter_invalid_integer` ("Invalid integer: abc"), enum values outside the list an
 * `invalid_request_error` naming the param.
 */

/** Refuses any parameter not in `allowed`; nested ones are named `parent[key]`. */
export function allowOnly (params: FormObject, allowed: readonly string[], parent?: string): void {
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) throw unknownParam(parent === undefined ? key : `${parent}[${key}]`)
  }
}

export function str (params: FormObject, name: string, path = name): string | undefined {
  const value = params[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalidParam(path, `Invalid string: ${path} must be a string`)
  return value
}

export function requiredStr (params: FormObject, name: string, path = name): string {
  const value = str(params, name, path)
  if (value === undefined || value === '') throw missingParam(path)
  return value
}

export function int (params: FormObject, name: string, path = name): number | undefined {
  const value = str(params, name, path)
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw invalidRequest(`Invalid integer: ${value}`, 'parameter_invalid_integer', path)
  return Number(value)
}

export function bool (params: FormObject, name: string): boolean | undefined {
  const value = str(params, name)
  if (value === undefined) return undefined
  if (value !== 'true' && value !== 'false') throw invalidParam(name, `Invalid boolean: ${value}`)
  return value === 'true'
}

export function oneOf<T extends string> (params: FormObject, name: string, values: readonly T[]): T | undefined {
  const value = str(params, name)
  if (value === undefined) return undefined
  if (!(values as readonly string[]).includes(value)) throw invalidParam(name, `Invalid ${name}: must be one of ${values.join(', ')}`)
  return value as T
}

export function obj (params: FormObject, name: string, path = name): FormObject | undefined {
  const value = params[name]
  if (value === undefined) return undefined
  if (typeof value === 'string' || Array.isArray(value)) throw invalidParam(path, `Invalid object: ${path} must be an object`)
  return value
}

export function list (params: FormObject, name: string): FormValue[] | undefined {
  const value = params[name]
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw invalidParam(name, `Invalid array: ${name} must be an array`)
  return value
}

export function stringList (params: FormObject, name: string): string[] | undefined {
  const value = list(params, name)
  if (value === undefined) return undefined
  return value.map((item, index) => {
    if (typeof item !== 'string') throw invalidParam(`${name}[${index}]`, `Invalid string: ${name}[${index}] must be a string`)
    return item
  })
}

/**
 * `metadata`: up to 50 keys of at most 40 characters, values of at most 500 characters; an empty
 * value unsets a key (https://docs.stripe.com/api/metadata).
 */
export function metadata (params: FormObject, name = 'metadata', current: Record<string, string> = {}): Record<string, string> | undefined {
  const value = obj(params, name)
  if (value === undefined) return undefined
  const result = { ...current }
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw invalidParam(`${name}[${key}]`, `Invalid string: ${name}[${key}] must be a string`)
    if (key.length > 40) throw invalidParam(`${name}[${key}]`, 'Metadata keys can have at most 40 characters.')
    if (item.length > 500) throw invalidParam(`${name}[${key}]`, 'Metadata values can have at most 500 characters.')
    if (item === '') delete result[key]
    else result[key] = item
  }
  if (Object.keys(result).length > 50) throw invalidParam(name, 'Metadata can have at most 50 keys.')
  return result
}

/** `currency`: a three-letter ISO code, lowercase in every answer (https://docs.stripe.com/currencies). */
export function currency (params: FormObject, name: string, path = name): string | undefined {
  const value = str(params, name, path)
  if (value === undefined) return undefined
  if (!/^[a-zA-Z]{3}$/.test(value)) throw invalidParam(path, `Invalid currency: ${value.toLowerCase()}.`)
  return value.toLowerCase()
}
